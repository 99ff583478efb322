//! Candidate answers: the spans of a sentence that have the shape of the
//! value asked for, each with a normal form (its key) so that spellings of
//! one value meet in the vote.
//!
//! - names: runs of capitalised words (with "of", "de", "van"... inside),
//!   less ordinary words capitalised at a sentence start and less the
//!   question's own words at their edges;
//! - dates: day, month and year in the usual English orders, ISO dates
//!   and Chinese/Japanese dates (2022年1月3日), keyed `YYYY-MM-DD` with
//!   the parts a span has;
//! - numbers: an amount with its scale word and unit (`$10.4 billion`,
//!   `74%`, `3.5万`), keyed by value and unit;
//! - versions (`5.1`, `version 3`) and years.

use std::collections::{BTreeSet, HashSet};
use std::sync::LazyLock;

use regex::Regex;

use super::AnswerType;

/// One candidate answer in a sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// The span as written.
    pub text: String,
    /// Its normal form.
    pub key: Key,
    /// Byte range in the sentence.
    pub start: usize,
    pub end: usize,
    /// How much the span looks like an answer of its type (0..1): a lone
    /// capitalised word is a weaker name than two.
    pub shape: f64,
}

/// The normal form of a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    /// Lowercase words of a name, articles and punctuation dropped.
    Name(Vec<String>),
    /// A date's known parts.
    Date {
        year: Option<i32>,
        month: Option<u32>,
        day: Option<u32>,
    },
    /// A number scaled to units, with its unit ("usd", "%", "" for none).
    Number { value: f64, unit: String },
    /// A version's numeric parts.
    Version(Vec<u32>),
}

impl Key {
    /// Whether two keys are one value: a name within the other ("Halep",
    /// "Simona Halep"), dates agreeing on every part both have, numbers
    /// within 1% of each other in one unit, equal versions.
    pub fn same_value(&self, other: &Key) -> bool {
        match (self, other) {
            (Key::Name(a), Key::Name(b)) => {
                // "Biden Jr." is "Joe Biden": the generation is not more name.
                let proper = |w: &Vec<String>| -> Vec<String> {
                    w.iter().filter(|w| !is_generation(w)).cloned().collect()
                };
                let (a, b) = (&proper(a), &proper(b));
                let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
                !short.is_empty() && short.iter().all(|w| long.iter().any(|l| same_word(w, l)))
            }
            (
                Key::Date {
                    year: y1,
                    month: m1,
                    day: d1,
                },
                Key::Date {
                    year: y2,
                    month: m2,
                    day: d2,
                },
            ) => {
                let agree = |a: &Option<i32>, b: &Option<i32>| a.is_none() || b.is_none() || a == b;
                let agree_u =
                    |a: &Option<u32>, b: &Option<u32>| a.is_none() || b.is_none() || a == b;
                // A bare year does not meet a bare month-day.
                let shared = (y1.is_some() && y2.is_some()) || (m1.is_some() && m2.is_some());
                shared && agree(y1, y2) && agree_u(m1, m2) && agree_u(d1, d2)
            }
            (Key::Number { value: a, unit: ua }, Key::Number { value: b, unit: ub }) => {
                (ua == ub || ua.is_empty() || ub.is_empty())
                    && ((a - b).abs() <= 0.01 * a.abs().max(b.abs()) || a == b)
            }
            (Key::Version(a), Key::Version(b)) => a == b,
            _ => false,
        }
    }

    /// How specific a key is: the fuller spelling of a value is shown.
    pub fn detail(&self) -> usize {
        match self {
            // "Jr." after a name tells which of a family it is, not
            // more of the name: "Joe Biden" is as full as "Biden Jr.".
            Key::Name(w) => w.iter().filter(|w| !is_generation(w)).count(),
            Key::Date { year, month, day } => {
                usize::from(year.is_some())
                    + usize::from(month.is_some())
                    + usize::from(day.is_some())
            }
            Key::Number { unit, .. } => usize::from(!unit.is_empty()),
            Key::Version(v) => v.len(),
        }
    }
}

/// Whether a word after a name tells a generation of a family ("Jr.",
/// "Sr."). A monarch's number ("Henry IV") is part of the name.
fn is_generation(word: &str) -> bool {
    matches!(
        word.trim_end_matches('.').to_lowercase().as_str(),
        "jr" | "sr"
    )
}

/// Whether two words of names are one word, or one spelt a letter apart
/// ("Kurzel", "Kurze"; "Christophe", "Cristophe"): long words, same first
/// letter, one edit.
fn same_word(a: &str, b: &str) -> bool {
    a == b
        || a.chars().count().min(b.chars().count()) >= 5
            && a.chars().next() == b.chars().next()
            && strsim::levenshtein(a, b) <= 1
}

/// What the spans of a sentence are judged against.
#[derive(Debug, Default)]
pub struct SpanContext {
    /// Lowercase words of the question: a name made of them is the
    /// subject of the question, not its answer.
    pub question_words: BTreeSet<String>,
    /// Words seen in lowercase in the texts read: capitalised at a
    /// sentence start ("Despite", "Tesla" never is) they are ordinary words.
    pub common: HashSet<String>,
}

/// English words written in lowercase (SCOWL's list): capitalised, they
/// are ordinary words at a sentence start or in a heading, weak as names.
static ENGLISH: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("english_words.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect()
});

/// Whether a lowercase word is an English dictionary word.
pub fn is_english_word(w: &str) -> bool {
    ENGLISH.contains(w)
}

impl SpanContext {
    /// Whether a lowercase word is an ordinary word: seen in lowercase in
    /// the texts read, or an English dictionary word.
    pub fn is_ordinary(&self, w: &str) -> bool {
        self.common.contains(w) || ENGLISH.contains(w)
    }

    pub fn new(question: &str, texts: &[&str]) -> Self {
        let question_words = question
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut common = HashSet::new();
        for t in texts {
            for w in t.split(|c: char| !c.is_alphanumeric()) {
                if w.chars().next().is_some_and(char::is_lowercase) {
                    common.insert(w.to_string());
                }
            }
        }
        Self {
            question_words,
            common,
        }
    }
}

/// The spans of `sentence` that can answer a question of type `ty`.
pub fn spans(sentence: &str, ty: AnswerType, cx: &SpanContext) -> Vec<Span> {
    match ty {
        AnswerType::Person | AnswerType::Organisation | AnswerType::Name | AnswerType::Place => {
            names(sentence, ty, cx)
        }
        AnswerType::Date => {
            let mut d = dates(sentence);
            if d.is_empty() {
                d = years(sentence);
                for s in &mut d {
                    s.shape = 0.5;
                }
            }
            d
        }
        AnswerType::Year => {
            let mut y = years(sentence);
            // A full date names its year too.
            for d in dates(sentence) {
                if let Key::Date { year: Some(_), .. } = d.key
                    && !y.iter().any(|s| s.start >= d.start && s.end <= d.end)
                {
                    y.push(d);
                }
            }
            y
        }
        AnswerType::Money => numbers(sentence)
            .into_iter()
            .filter(
                |s| matches!(&s.key, Key::Number { unit, .. } if !unit.is_empty() && unit != "%"),
            )
            .collect(),
        AnswerType::Percent => numbers(sentence)
            .into_iter()
            .filter(|s| matches!(&s.key, Key::Number { unit, .. } if unit == "%"))
            .collect(),
        AnswerType::Quantity => {
            let dates = dates(sentence);
            numbers(sentence)
                .into_iter()
                .filter(|s| !dates.iter().any(|d| s.start < d.end && d.start < s.end))
                .filter(|s| !is_year_span(sentence, s))
                .collect()
        }
        AnswerType::Version => versions(sentence),
        AnswerType::YesNo | AnswerType::Explanation => vec![],
    }
}

/// Whether a whole number is a year a text may name (1500 to 2100).
pub(super) fn is_year(n: u32) -> bool {
    (1500..=2100).contains(&n)
}

fn is_year_span(sentence: &str, s: &Span) -> bool {
    matches!(&s.key, Key::Number { value, unit } if unit.is_empty() && f64::from(*value as u32) == *value && is_year(*value as u32))
        && sentence[s.start..s.end].trim().len() == 4
}

/// Capitalised words that begin sentences and clauses without being names.
const FUNCTION_CAPS: &[&str] = &[
    "the",
    "a",
    "an",
    "in",
    "on",
    "at",
    "this",
    "that",
    "these",
    "those",
    "it",
    "he",
    "she",
    "they",
    "we",
    "i",
    "you",
    "his",
    "her",
    "its",
    "their",
    "our",
    "my",
    "your",
    "after",
    "before",
    "when",
    "while",
    "as",
    "but",
    "and",
    "or",
    "for",
    "with",
    "by",
    "from",
    "to",
    "if",
    "according",
    "despite",
    "during",
    "since",
    "until",
    "also",
    "however",
    "then",
    "there",
    "here",
    "what",
    "who",
    "which",
    "where",
    "why",
    "how",
    "of",
    "so",
    "yet",
    "not",
    "no",
    "yes",
    "all",
    "some",
    "many",
    "most",
    "more",
    "each",
    "every",
    "both",
    "new",
    "first",
    "last",
    "next",
    "one",
    "two",
    "three",
    "mr",
    "mrs",
    "ms",
    "dr",
    "sir",
    "is",
    "are",
    "was",
    "were",
    "be",
    "has",
    "have",
    "had",
    "will",
    "would",
    "can",
    "could",
    "may",
    "might",
    "should",
    "must",
    "do",
    "does",
    "did",
    "now",
    "today",
    "updated",
    "published",
    "posted",
    "read",
    "see",
    "click",
    "share",
    "home",
    "news",
    "photo",
    "video",
    "image",
    "getty",
    "reuters",
    "ap",
    "afp",
    "copyright",
    "image",
    "images",
];

/// Words that may sit inside a name ("Bank of England", "Vincent van Gogh").
const NAME_JOINERS: &[&str] = &[
    "of", "de", "da", "del", "della", "di", "van", "von", "der", "den", "la", "le", "du", "bin",
    "al", "el", "y", "&", "and", "the",
];

/// The least shape a span keeps to be a candidate at all: below it, a
/// name is a heading's word or a thing, not an answer.
const MIN_SHAPE: f64 = 0.35;

/// The last words of names of things and institutions, never of a person
/// ("Outland Trophy", "Air Force Base", "Acme Holdings").
const THING_HEADS: &[&str] = &[
    "trophy",
    "award",
    "awards",
    "prize",
    "cup",
    "medal",
    "league",
    "championship",
    "tournament",
    "bowl",
    "open",
    "games",
    "olympics",
    "series",
    "stadium",
    "arena",
    "university",
    "college",
    "school",
    "academy",
    "institute",
    "foundation",
    "museum",
    "festival",
    "company",
    "inc",
    "corp",
    "corporation",
    "ltd",
    "llc",
    "group",
    "holdings",
    "bank",
    "party",
    "association",
    "federation",
    "committee",
    "council",
    "club",
    "team",
    "base",
    "force",
    "army",
    "navy",
    "street",
    "avenue",
    "road",
    "river",
    "island",
    "lake",
    "park",
    "county",
    "city",
    "state",
    "province",
    "airport",
    "station",
    "hospital",
    "church",
    "hall",
    "centre",
    "center",
];

/// How much a name reads as a person's, by its words and what precedes it:
/// not a thing's name ("Outland Trophy"), not a noun with an article ("a
/// Colombian"), not a place ("at Maxwell Air Force Base, Alabama").
fn as_person(toks: &[Token<'_>], a: usize, b: usize) -> f64 {
    let last = toks[b - 1].core.to_lowercase();
    if THING_HEADS.contains(&last.as_str()) {
        return 0.3;
    }
    let before = |i: usize| a.checked_sub(i).map(|j| toks[j].core.to_lowercase());
    if b - a == 1 && matches!(before(1).as_deref(), Some("a" | "an")) {
        return 0.3;
    }
    // The nearest word before the name that is not capitalised (the words
    // of a place's name, "Maxwell Air Force Base,", are skipped).
    let lead = toks[..a]
        .iter()
        .rev()
        .find(|t| !is_capitalised(t.core))
        .map(|t| t.core.to_lowercase());
    // "at", "near" and "outside" lead to a place, never to a person; "in"
    // leads to a place as a rule, to a team or a person's work at times.
    if matches!(lead.as_deref(), Some("at" | "near" | "outside")) {
        return 0.3;
    }
    if lead.as_deref() == Some("in") {
        return 0.45;
    }
    // Who was beaten is not who won: "Andy Murray defeated Novak Djokovic".
    if matches!(
        before(1).as_deref(),
        Some("defeated" | "defeating" | "beat" | "beating" | "over" | "against")
    ) {
        return 0.5;
    }
    1.0
}

struct Token<'a> {
    core: &'a str,
    start: usize,
    end: usize,
    /// Punctuation after it ends a name (",", ".", ";", ":", a bracket).
    breaks: bool,
    /// The punctuation after it is exactly a comma.
    comma: bool,
}

fn tokens(sentence: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut offset = 0;
    for raw in sentence.split_inclusive(char::is_whitespace) {
        let start_raw = offset;
        offset += raw.len();
        let word = raw.trim_end();
        let lead = word.len()
            - word
                .trim_start_matches(|c: char| !c.is_alphanumeric())
                .len();
        let body = &word[lead..];
        let core = body.trim_end_matches(|c: char| !c.is_alphanumeric());
        let core = core
            .strip_suffix("'s")
            .or_else(|| core.strip_suffix("\u{2019}s"))
            .unwrap_or(core);
        if core.is_empty() {
            if let Some(last) = out.last_mut() {
                let t: &mut Token = last;
                t.breaks = true;
            }
            continue;
        }
        let tail = &body[core.len()..];
        let start = start_raw + lead;
        // Punctuation before a word ends the name before it.
        if lead > 0
            && let Some(last) = out.last_mut()
        {
            let t: &mut Token = last;
            t.breaks = true;
        }
        out.push(Token {
            core,
            start,
            end: start + core.len(),
            breaks: !tail.is_empty(),
            comma: tail == ",",
        });
    }
    out
}

/// A capitalised compound that opens with a function word ("All-American",
/// "All-Star", "Non-League"): English makes adjectives and titles this way,
/// never a person's name.
fn is_compound_modifier(w: &str) -> bool {
    w.split_once('-').is_some_and(|(head, rest)| {
        !rest.is_empty() && FUNCTION_CAPS.contains(&head.to_lowercase().as_str())
    })
}

fn is_capitalised(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(char::is_uppercase) && w.chars().any(char::is_alphabetic)
}

/// Runs of capitalised words: the names of a sentence.
fn names(sentence: &str, ty: AnswerType, cx: &SpanContext) -> Vec<Span> {
    let toks = tokens(sentence);
    let mut runs: Vec<(usize, usize)> = Vec::new(); // token index ranges [a, b)
    let mut i = 0;
    // The question's own words are its subject, never part of its answer:
    // they split a name ("FIFA World Cup Russia" asked about the World Cup
    // leaves "FIFA" and "Russia").
    let asked = |t: &str| cx.question_words.contains(&t.to_lowercase());
    let starts = |t: &str| is_capitalised(t) && !is_calendar(t) && !asked(t);
    // Two people are two answers: "and" joins a person's name to no other.
    let joins = |t: &str| {
        let l = t.to_lowercase();
        NAME_JOINERS.contains(&l.as_str())
            && !(ty == AnswerType::Person && (l == "and" || l == "&"))
    };
    while i < toks.len() {
        if !starts(toks[i].core) {
            i += 1;
            continue;
        }
        let a = i;
        let mut b = i + 1;
        while b < toks.len() && !toks[b - 1].breaks {
            let t = toks[b].core;
            if starts(t) {
                b += 1;
            } else if joins(t) && !toks[b].breaks && toks.get(b + 1).is_some_and(|n| starts(n.core))
            {
                b += 2;
            } else {
                break;
            }
        }
        runs.push((a, b));
        i = b;
    }
    let mut out = Vec::new();
    let mut k = 0;
    while k < runs.len() {
        let (mut a, mut b) = runs[k];
        // "Tampa, Florida": a place and the region it is in.
        if ty == AnswerType::Place
            && let Some(&(c, d)) = runs.get(k + 1)
            && c == b
            && toks[b - 1].comma
            && d - c <= 2
        {
            b = d;
            k += 1;
        }
        k += 1;
        // Ordinary words capitalised at the start of the sentence.
        while a < b
            && (FUNCTION_CAPS.contains(&toks[a].core.to_lowercase().as_str())
                || (a == 0 && cx.common.contains(&toks[a].core.to_lowercase())))
        {
            a += 1;
        }
        // The question's own words at the edges of a name are its subject.
        while a < b && cx.question_words.contains(&toks[a].core.to_lowercase()) {
            a += 1;
        }
        while b > a && cx.question_words.contains(&toks[b - 1].core.to_lowercase()) {
            b -= 1;
        }
        while b > a && NAME_JOINERS.contains(&toks[b - 1].core.to_lowercase().as_str()) {
            b -= 1;
        }
        // A label before a person's name ("Winner Novak Djokovic", "Chief
        // Executive Jane Doe"): words the texts also write in lowercase,
        // while two words of the name are left; a compound modifier
        // ("All-American Jane Doe") is one too.
        while ty == AnswerType::Person
            && a < b
            && (b - a > 2 && cx.common.contains(&toks[a].core.to_lowercase())
                || is_compound_modifier(toks[a].core))
        {
            a += 1;
        }
        if a >= b {
            continue;
        }
        let words: Vec<String> = toks[a..b]
            .iter()
            .map(|t| t.core.to_lowercase())
            .filter(|w| !NAME_JOINERS.contains(&w.as_str()))
            .collect();
        // A name of ordinary words only ("Ladies Singles", "Followers") is
        // a heading or a label as a rule: never a person, a weak name.
        let seen_lower = words
            .iter()
            .filter(|w| cx.common.contains(w.as_str()) || FUNCTION_CAPS.contains(&w.as_str()))
            .count();
        let ordinary = words.iter().filter(|w| cx.is_ordinary(w)).count();
        if words.is_empty() || words.len() == 1 && seen_lower == 1 {
            continue;
        }
        let all_ordinary = ordinary == words.len();
        if all_ordinary && ty == AnswerType::Person && words.len() > 1 {
            continue;
        }
        if seen_lower == words.len() && ty != AnswerType::Place {
            continue;
        }
        let all_caps = toks[a..b].iter().all(|t| {
            t.core
                .chars()
                .filter(|c| c.is_alphabetic())
                .all(char::is_uppercase)
        });
        let shape = match (ty, b - a) {
            (AnswerType::Person, 1) => 0.75,
            (AnswerType::Person, 2..=3) => 1.0,
            (_, 1..=4) => 1.0,
            _ => 0.7,
        } * if all_caps && b - a > 1 { 0.6 } else { 1.0 }
            * if all_ordinary { 0.4 } else { 1.0 };
        // "..., said Arjun Pillai": who speaks is attributed, not the subject
        // of what is said.
        let reporting = |t: Option<&Token>| {
            t.is_some_and(|t| {
                matches!(
                    t.core.to_lowercase().as_str(),
                    "said" | "says" | "told" | "wrote" | "added" | "explained" | "according"
                )
            })
        };
        let attributed = reporting(a.checked_sub(1).and_then(|i| toks.get(i)))
            || reporting(a.checked_sub(2).and_then(|i| toks.get(i))) && toks[a - 1].core == "to"
            || reporting(toks.get(b));
        let shape = if attributed { shape * 0.5 } else { shape };
        let shape = if ty == AnswerType::Person {
            shape * as_person(&toks, a, b)
        } else {
            shape
        };
        if shape < MIN_SHAPE {
            continue;
        }
        let (start, end) = (toks[a].start, toks[b - 1].end);
        out.push(Span {
            text: sentence[start..end].to_string(),
            key: Key::Name(words),
            start,
            end,
            shape,
        });
    }
    out
}

fn is_calendar(w: &str) -> bool {
    crate::document::is_calendar_word(&w.trim_end_matches('.').to_lowercase())
}

fn month_number(w: &str) -> Option<u32> {
    let w = w.trim_end_matches('.').to_lowercase();
    crate::document::MONTH_NAMES
        .iter()
        .position(|m| {
            *m == w || (w.len() >= 3 && m.starts_with(&w) && (w.len() == 3 || w == "sept"))
        })
        .map(|i| i as u32 + 1)
}

const MONTH: &str = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?";

static DATE_PATTERNS: LazyLock<Vec<(Regex, [u8; 3])>> = LazyLock::new(|| {
    // The groups holding (year, month, day), 0 for none.
    vec![
        (
            crate::re(&format!(
                r"(?i)\b{MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,\s*|\s+)(\d{{4}})\b"
            )),
            [3, 1, 2],
        ),
        (
            crate::re(&format!(
                r"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH},?\s+(\d{{4}})\b"
            )),
            [3, 2, 1],
        ),
        (crate::re(r"\b(\d{4})-(\d{2})-(\d{2})\b"), [1, 2, 3]),
        (
            crate::re(r"(\d{4})\s?年\s?(\d{1,2})\s?月\s?(\d{1,2})\s?[日号]"),
            [1, 2, 3],
        ),
        (crate::re(r"(\d{4})\s?年\s?(\d{1,2})\s?月"), [1, 2, 0]),
        (crate::re(r"(\d{1,2})\s?月\s?(\d{1,2})\s?[日号]"), [0, 1, 2]),
        (
            crate::re(&format!(r"(?i)\b{MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")),
            [0, 1, 2],
        ),
        (
            crate::re(&format!(
                r"(?i)\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH}\b"
            )),
            [0, 2, 1],
        ),
        (
            crate::re(&format!(r"(?i)\b{MONTH},?\s+(\d{{4}})\b")),
            [2, 1, 0],
        ),
        // A month alone after a word that makes it a time: "every March",
        // "in June", "until October" (a capitalised month: "may" is a verb).
        (
            crate::re(
                r"\b(?i:every|each|in|by|until|till|since|from|during|through|before|after|early|late|mid-?)\s+(January|February|March|April|May|June|July|August|September|October|November|December)\b",
            ),
            [0, 1, 0],
        ),
    ]
});

/// Dates in a sentence, longest first where they overlap.
pub fn dates(sentence: &str) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    for (re, [y, m, d]) in DATE_PATTERNS.iter() {
        for c in re.captures_iter(sentence) {
            let Some(whole) = c.get(0) else { continue };
            if out
                .iter()
                .any(|s| whole.start() < s.end && s.start < whole.end())
            {
                continue;
            }
            let group = |g: u8| {
                (g > 0)
                    .then(|| c.get(usize::from(g)))
                    .flatten()
                    .map(|m| m.as_str())
            };
            let month = group(*m).and_then(|t| t.parse::<u32>().ok().or_else(|| month_number(t)));
            let day = group(*d).and_then(|t| t.parse::<u32>().ok());
            let year = group(*y).and_then(|t| t.parse::<i32>().ok());
            if month.is_none_or(|m| !(1..=12).contains(&m))
                || day.is_some_and(|d| !(1..=31).contains(&d))
            {
                continue;
            }
            // "may 5" is a date only with a capital M.
            if whole.as_str().to_lowercase().starts_with("may") && whole.as_str().starts_with('m') {
                continue;
            }
            out.push(Span {
                text: whole.as_str().to_string(),
                key: Key::Date { year, month, day },
                start: whole.start(),
                end: whole.end(),
                shape: 1.0,
            });
        }
    }
    out.sort_by_key(|s| s.start);
    out
}

fn years(sentence: &str) -> Vec<Span> {
    static YEAR: LazyLock<Regex> =
        LazyLock::new(|| crate::re(r"\b(1[5-9]\d\d|20\d\d)\b(?:\s?年)?"));
    YEAR.captures_iter(sentence)
        .filter_map(|c| {
            let m = c.get(0)?;
            let after = sentence[m.end()..].chars().next();
            if after.is_some_and(|c| c == '%' || c.is_ascii_digit()) {
                return None;
            }
            let year = c.get(1)?.as_str().parse().ok()?;
            Some(Span {
                text: m.as_str().to_string(),
                key: Key::Date {
                    year: Some(year),
                    month: None,
                    day: None,
                },
                start: m.start(),
                end: m.end(),
                shape: 1.0,
            })
        })
        .collect()
}

static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    crate::re(
        r"(?i)(US\$|A\$|C\$|HK\$|NT\$|R\$|\$|€|£|¥|₹|\b(?:rs\.?|usd|eur|gbp|inr|rmb|cny|jpy)\s?)?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?(bytes?|[kmgt]i?b|kilobytes?|megabytes?|gigabytes?|terabytes?|ms|milliseconds?|seconds?|minutes?|hours?)\b)?(?:\s?(trillion|billion|million|thousand|crore|lakh|bn|mn|tn|m|b|k|万亿|亿|万|千)\b?)?(?:\s?(%|％|percent\b|per cent\b))?(?:\s?(dollars?|euros?|pounds?|yuan|yen|rupees?|usd|eur|gbp|元|美元|人民币|港元|欧元|英镑|日元)\b?)?",
    )
});

/// Amounts in a sentence, each with its scale and unit.
pub fn numbers(sentence: &str) -> Vec<Span> {
    let mut out = Vec::new();
    for c in NUMBER.captures_iter(sentence) {
        let Some(whole) = c.get(0) else { continue };
        // "Q1", "A320", "COVID-19": a number inside a word is part of a name
        // (a number after a Chinese character is not: "上升6.4%").
        let before = sentence[..whole.start()].chars().next_back();
        let in_word = |b: char| (b.is_alphanumeric() && !super::cjk::is_cjk(b)) || b == '-';
        if c.get(1).is_none() && before.is_some_and(in_word) {
            continue;
        }
        // "3.24.0": a part of a dotted release number is no amount.
        let dotted_before = sentence[..whole.start()].ends_with('.')
            && sentence[..whole.start() - 1]
                .chars()
                .next_back()
                .is_some_and(|b| b.is_ascii_digit());
        let mut rest = sentence[whole.end()..].chars();
        let dotted_after =
            rest.next() == Some('.') && rest.next().is_some_and(|a| a.is_ascii_digit());
        if dotted_before || dotted_after {
            continue;
        }
        let Some(digits) = c.get(2) else { continue };
        let Ok(mut value) = digits.as_str().replace(',', "").parse::<f64>() else {
            continue;
        };
        let scale = c.get(4).map(|m| m.as_str().to_lowercase());
        value *= match scale.as_deref() {
            Some("trillion" | "tn" | "万亿") => 1e12,
            Some("billion" | "bn" | "b") => 1e9,
            Some("亿") => 1e8,
            Some("million" | "mn" | "m") => 1e6,
            Some("crore") => 1e7,
            Some("lakh") => 1e5,
            Some("万") => 1e4,
            Some("thousand" | "k" | "千") => 1e3,
            _ => 1.0,
        };
        let currency = c
            .get(1)
            .map(|m| m.as_str())
            .or_else(|| c.get(6).map(|m| m.as_str()))
            .map(currency_code);
        let measure = c.get(3).map(|m| measure(m.as_str()));
        if let Some((_, factor)) = measure {
            value *= factor;
        }
        let unit = if let Some((unit, _)) = measure {
            unit.to_string()
        } else if c.get(5).is_some() {
            "%".to_string()
        } else {
            currency.unwrap_or_default().to_string()
        };
        let mut end = whole.end();
        // The scale's optional word boundary can leave trailing spaces.
        while sentence[..end].ends_with(' ') {
            end -= 1;
        }
        let text = sentence[whole.start()..end].to_string();
        out.push(Span {
            text,
            key: Key::Number { value, unit },
            start: whole.start(),
            end,
            shape: 1.0,
        });
    }
    out
}

/// A unit of measure, as the unit it is counted in and how many of that
/// one it is: "128MB" and "128 megabytes" are one size, "2 seconds" and
/// "2000 ms" one duration. Sizes count in binary multiples, as software does.
fn measure(unit: &str) -> (&'static str, f64) {
    let u = unit.to_lowercase();
    let size = |p: i32| ("byte", 1024f64.powi(p));
    match u.trim_end_matches('s') {
        "byte" | "b" => size(0),
        "kb" | "kib" | "kilobyte" => size(1),
        "mb" | "mib" | "megabyte" => size(2),
        "gb" | "gib" | "gigabyte" => size(3),
        "tb" | "tib" | "terabyte" => size(4),
        "m" | "millisecond" => ("second", 0.001),
        "minute" => ("second", 60.0),
        "hour" => ("second", 3600.0),
        // "second(s)": the pattern matches no other unit.
        _ => ("second", 1.0),
    }
}

fn currency_code(symbol: &str) -> &'static str {
    let s = symbol.trim().trim_end_matches('.').to_lowercase();
    match s.as_str() {
        "$" | "us$" | "usd" | "dollar" | "dollars" | "美元" => "usd",
        "€" | "eur" | "euro" | "euros" | "欧元" => "eur",
        "£" | "gbp" | "pound" | "pounds" | "英镑" => "gbp",
        "₹" | "rs" | "inr" | "rupee" | "rupees" => "inr",
        "¥" | "yen" | "jpy" | "日元" => "jpy",
        "yuan" | "rmb" | "cny" | "元" | "人民币" => "cny",
        "a$" => "aud",
        "c$" => "cad",
        "hk$" | "港元" => "hkd",
        "nt$" => "twd",
        "r$" => "brl",
        _ => "money",
    }
}

fn versions(sentence: &str) -> Vec<Span> {
    static VERSION: LazyLock<Regex> = LazyLock::new(|| {
        crate::re(r"(?i)\b(?:v|version\s+|release\s+)?(\d+(?:\.\d+)+|(?:version|release)\s+\d+)\b")
    });
    VERSION
        .captures_iter(sentence)
        .filter_map(|c| {
            let m = c.get(0)?;
            let parts: Vec<u32> = m
                .as_str()
                .split(|c: char| !c.is_ascii_digit())
                .filter(|p| !p.is_empty())
                .filter_map(|p| p.parse().ok())
                .collect();
            (!parts.is_empty()).then(|| Span {
                text: m.as_str().to_string(),
                key: Key::Version(parts),
                start: m.start(),
                end: m.end(),
                shape: 1.0,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(spans: &[Span]) -> Vec<&str> {
        spans.iter().map(|s| s.text.as_str()).collect()
    }

    #[test]
    fn names_drop_sentence_openers_and_the_questions_words() {
        let cx = SpanContext::new(
            "Who acquired the photo app Pixelgram?",
            &["the app was acquired"],
        );
        let s = "The social network Facebook acquired Pixelgram in April 2012 for $1 billion.";
        assert_eq!(texts(&spans(s, AnswerType::Person, &cx)), vec!["Facebook"]);
        let s = "Simona Halep defeated Serena Williams in the final, 6-2, 6-2.";
        assert_eq!(
            texts(&spans(s, AnswerType::Person, &cx)),
            vec!["Simona Halep", "Serena Williams"]
        );
    }

    #[test]
    fn a_speaker_is_a_weaker_answer_than_the_subject_of_what_is_said() {
        let cx = SpanContext::new("Who leads Acme?", &[]);
        let s = "\"Priya Nair is the right person to lead Acme,\" said Arjun Pillai, its founder.";
        let got = spans(s, AnswerType::Person, &cx);
        let shape = |n: &str| got.iter().find(|g| g.text == n).map(|g| g.shape);
        assert!(shape("Priya Nair") > shape("Arjun Pillai"), "{got:?}");
    }

    #[test]
    fn a_part_of_a_release_number_is_no_amount() {
        let got =
            numbers("Beginning with version 3.24.0 (2018-06-04), tables can have 2000 columns.");
        let values: Vec<&str> = got.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(values, vec!["2018", "2000"]);
        assert_eq!(numbers("It costs $3.5.")[0].text, "$3.5");
    }

    #[test]
    fn a_place_is_no_answer_to_who() {
        let cx = SpanContext::new("Who is the Maxwell Award winner in 2019?", &[]);
        let s = "Recipients of the 2019 Leadership Award stand at Maxwell Air Force Base, Alabama.";
        let got = spans(s, AnswerType::Person, &cx);
        assert!(!texts(&got).contains(&"Alabama"), "{got:?}");
        let s = "The 2019 award went to Joe Burrow at a ceremony.";
        assert_eq!(
            texts(&spans(s, AnswerType::Person, &cx)),
            vec!["Joe Burrow"]
        );
    }

    #[test]
    fn a_compound_modifier_is_no_person() {
        let cx = SpanContext::new("Who won the Quokka Trophy in 2017?", &[]);
        let s = "He was a 2017 consensus All-American after All-Star Jane Doe left.";
        assert_eq!(texts(&spans(s, AnswerType::Person, &cx)), vec!["Jane Doe"]);
        let s = "The 2017 trophy went to Jean-Luc Picard.";
        assert_eq!(
            texts(&spans(s, AnswerType::Person, &cx)),
            vec!["Jean-Luc Picard"]
        );
    }

    #[test]
    fn places_keep_their_region() {
        let cx = SpanContext::new("Where was the final held?", &[]);
        let s = "The final was held at Raymond James Stadium in Tampa, Florida.";
        assert_eq!(
            texts(&spans(s, AnswerType::Place, &cx)),
            vec!["Raymond James Stadium", "Tampa, Florida"]
        );
    }

    #[test]
    fn dates_in_several_spellings_meet() {
        let a = dates("It opened on July 21, 2017 to the public.");
        let b = dates("Opened 21 July 2017.");
        let c = dates("开业时间为2017年7月21日。");
        assert_eq!(a.len(), 1);
        assert!(a[0].key.same_value(&b[0].key));
        assert!(a[0].key.same_value(&c[0].key));
        let md = dates("会议于1月12日举行");
        assert_eq!(
            md[0].key,
            Key::Date {
                year: None,
                month: Some(1),
                day: Some(12)
            }
        );
        assert!(dates("You may 5 times").is_empty());
    }

    #[test]
    fn a_month_alone_is_a_date_after_a_word_of_time() {
        let every = dates("The gauge is calibrated every March by the engineers.");
        assert_eq!(every.len(), 1);
        assert_eq!(every[0].text, "every March");
        assert_eq!(
            every[0].key,
            Key::Date {
                year: None,
                month: Some(3),
                day: None
            }
        );
        // A fuller date keeps its day and year; a verb "may" is no month.
        assert_eq!(dates("It opened in March 2017.")[0].text, "March 2017");
        assert!(dates("You may in May not.").len() == 1);
        assert!(dates("Readers in may be lost.").is_empty());
        assert!(dates("The March report was late.").is_empty());
    }

    #[test]
    fn amounts_are_scaled_and_keep_their_unit() {
        let n = numbers("Revenue was $10.4 billion, up 74%, from US$10,389 million.");
        let keys: Vec<&Key> = n.iter().map(|s| &s.key).collect();
        assert_eq!(texts(&n), vec!["$10.4 billion", "74%", "US$10,389 million"]);
        assert!(keys[0].same_value(keys[2]));
        assert!(!keys[0].same_value(keys[1]));
        assert!(numbers("In Q1 the A320 flew").is_empty());
        let cx = SpanContext::default();
        assert_eq!(
            texts(&spans("It cost 3.5亿元 in 2021.", AnswerType::Money, &cx)),
            vec!["3.5亿元"]
        );
        // After a Chinese character a number starts a word of its own.
        assert_eq!(
            texts(&spans("总值同比上升6.4%。", AnswerType::Percent, &cx)),
            vec!["6.4%"]
        );
        assert!(
            spans(
                "It opened in 2021 with 40 stores.",
                AnswerType::Quantity,
                &cx
            )
            .iter()
            .all(|s| s.text == "40")
        );
    }

    #[test]
    fn names_in_contained_spellings_are_one_value() {
        let a = Key::Name(vec!["halep".into()]);
        let b = Key::Name(vec!["simona".into(), "halep".into()]);
        assert!(a.same_value(&b));
        assert!(!a.same_value(&Key::Name(vec!["williams".into()])));
    }

    #[test]
    fn sizes_and_durations_are_one_value_in_any_unit() {
        let n = numbers(
            "The default is 128 megabytes (128MB), at most 1GB; it waits 2 seconds (2000 ms).",
        );
        let keys: Vec<&Key> = n.iter().map(|s| &s.key).collect();
        assert_eq!(
            texts(&n),
            vec!["128 megabytes", "128MB", "1GB", "2 seconds", "2000 ms"]
        );
        assert!(keys[0].same_value(keys[1]), "{keys:?}");
        assert!(!keys[0].same_value(keys[2]), "{keys:?}");
        assert!(keys[3].same_value(keys[4]), "{keys:?}");
        // A money amount keeps its scale word: "$5m" is five million dollars.
        assert!(
            matches!(&numbers("It cost $5m.")[0].key, Key::Number { value, unit } if *value == 5e6 && unit == "usd")
        );
    }
}
