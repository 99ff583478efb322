//! The normalisers of the claim check: text folding, numbers, dates, names
//! and key terms, each reduced to a canonical key so that `1,200`, `1200`
//! and `1.2 thousand`, or `5 March 2024` and `2024-03-05`, compare equal.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;
use rust_stemmers::{Algorithm, Stemmer};

use crate::evidence::quotes;

/// Folds text for comparison: typographic quotes, dashes and spaces as in
/// [`quotes::normalize`], lowercase, and thousands separators dropped
/// (`1,200` → `1200`, Indian `1,20,000` → `120000`). Idempotent.
pub fn fold(text: &str) -> String {
    let mut s = quotes::normalize(&text.to_lowercase());
    // Dropping one separator can turn an earlier comma into one (`5,1,23`):
    // repeat until nothing changes, so that `fold` is idempotent.
    loop {
        let next = drop_separators(&s);
        if next == s {
            return s;
        }
        s = next;
    }
}

fn drop_separators(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| !(c == ',' && is_separator_at(&chars, i)))
        .map(|(_, &c)| c)
        .collect()
}

/// A comma after a digit, followed by exactly two or three digits and then
/// no further digit: a thousands or lakh separator, not a list `1,2,3`.
fn is_separator_at(chars: &[char], i: usize) -> bool {
    if i == 0 || !chars[i - 1].is_ascii_digit() {
        return false;
    }
    let run = chars[i + 1..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    run == 2 || run == 3
}

/// A canonical key for a number: at most four decimals, no trailing zeros.
pub fn number_key(value: f64) -> String {
    if !value.is_finite() {
        return "nan".into();
    }
    let s = format!("{value:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    crate::re(
        r"(?i)(\d+(?:\.\d+)?)(?:st|nd|rd|th)?(?:\s?(%)|\s?(percent|per cent|million|mn|billion|bn|crores?|cr|lakhs?|lacs?|thousand)\b|(m|k|bn)\b)?",
    )
});

fn scale_of(word: &str) -> f64 {
    match word.to_ascii_lowercase().as_str() {
        "million" | "mn" | "m" => 1e6,
        "billion" | "bn" => 1e9,
        "crore" | "crores" | "cr" => 1e7,
        "lakh" | "lakhs" | "lac" | "lacs" => 1e5,
        "thousand" | "k" => 1e3,
        _ => 1.0,
    }
}

const NUMBER_WORDS: &[(&str, f64)] = &[
    ("two", 2.0),
    ("three", 3.0),
    ("four", 4.0),
    ("five", 5.0),
    ("six", 6.0),
    ("seven", 7.0),
    ("eight", 8.0),
    ("nine", 9.0),
    ("ten", 10.0),
    ("eleven", 11.0),
    ("twelve", 12.0),
    ("fifteen", 15.0),
    ("twenty", 20.0),
    ("hundred", 100.0),
];

/// A number as written and its canonical keys: the scaled value first
/// (`$12m` → 12000000), then the bare value (12).
#[derive(Debug, Clone, PartialEq)]
pub struct Number {
    pub text: String,
    pub keys: Vec<String>,
}

/// Numbers in folded text (see [`fold`]), digits and small number words.
pub fn numbers(folded: &str) -> Vec<Number> {
    let mut out = Vec::new();
    for c in NUMBER.captures_iter(folded) {
        let Some(m) = c.get(0) else { continue };
        // A digit run glued to letters on its left (`v3`, `iso27001`) still
        // counts: both sides are read the same way.
        let Ok(base) = c[1].parse::<f64>() else {
            continue;
        };
        let scale = c
            .get(3)
            .or(c.get(4))
            .map(|s| scale_of(s.as_str()))
            .unwrap_or(1.0);
        let mut keys = vec![number_key(base * scale)];
        if scale != 1.0 {
            keys.push(number_key(base));
        }
        out.push(Number {
            text: m.as_str().trim().to_string(),
            keys,
        });
    }
    for (word, _) in words(folded) {
        if let Some(&(_, v)) = NUMBER_WORDS.iter().find(|(w, _)| *w == word) {
            out.push(Number {
                text: word.to_string(),
                keys: vec![number_key(v)],
            });
        }
    }
    out
}

use crate::document::MONTH_NAMES as MONTHS;

fn month_of(word: &str) -> Option<u8> {
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    if w == "sept" {
        return Some(9);
    }
    MONTHS
        .iter()
        .position(|m| *m == w || (w.len() == 3 && m.starts_with(&w)))
        .map(|i| i as u8 + 1)
}

const MONTH_RE: &str = r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?";

static DATE: LazyLock<Regex> = LazyLock::new(|| {
    crate::re(&format!(
        r"(?i)\b(?:(?P<iy>\d{{4}})-(?P<im>\d{{1,2}})(?:-(?P<id>\d{{1,2}}))?\b|(?P<dd>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{m1},?\s+(?P<dy>\d{{4}})\b|{m2}\s+(?P<md>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<my>\d{{4}})\b|{m3},?\s+(?P<yy>\d{{4}})\b|(?P<sa>\d{{1,2}})[/.](?P<sb>\d{{1,2}})[/.](?P<sy>\d{{4}})\b)",
        m1 = MONTH_RE.replace("(january", "(?P<dm>january"),
        m2 = MONTH_RE.replace("(january", "(?P<mm>january"),
        m3 = MONTH_RE.replace("(january", "(?P<ym>january"),
    ))
});

/// A calendar date or month, canonically `YYYY-MM-DD` or `YYYY-MM`. A
/// slashed date (`05/03/2024`) is ambiguous and keeps both readings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Date {
    pub text: String,
    pub span: (usize, usize),
    pub readings: Vec<String>,
}

fn ymd(y: &str, m: u8, d: Option<&str>) -> Option<String> {
    let y: u32 = y.parse().ok()?;
    if !(1000..=2999).contains(&y) || !(1..=12).contains(&m) {
        return None;
    }
    match d {
        None => Some(format!("{y:04}-{m:02}")),
        Some(d) => {
            let d: u8 = d.parse().ok()?;
            (1..=31)
                .contains(&d)
                .then(|| format!("{y:04}-{m:02}-{d:02}"))
        }
    }
}

/// Dates in folded text (see [`fold`]).
pub fn dates(folded: &str) -> Vec<Date> {
    let mut out = Vec::new();
    for c in DATE.captures_iter(folded) {
        let Some(whole) = c.get(0) else { continue };
        let g = |name: &str| c.name(name).map(|m| m.as_str());
        let readings: Vec<String> = if let Some(y) = g("iy") {
            let m = g("im").and_then(|m| m.parse::<u8>().ok()).unwrap_or(0);
            ymd(y, m, g("id")).into_iter().collect()
        } else if let Some(y) = g("dy") {
            g("dm")
                .and_then(month_of)
                .and_then(|m| ymd(y, m, g("dd")))
                .into_iter()
                .collect()
        } else if let Some(y) = g("my") {
            g("mm")
                .and_then(month_of)
                .and_then(|m| ymd(y, m, g("md")))
                .into_iter()
                .collect()
        } else if let Some(y) = g("yy") {
            g("ym")
                .and_then(month_of)
                .and_then(|m| ymd(y, m, None))
                .into_iter()
                .collect()
        } else if let (Some(a), Some(b), Some(y)) = (g("sa"), g("sb"), g("sy")) {
            let mut r = Vec::new();
            // day/month (most of the world) and month/day (US).
            if let Some(m) = b.parse::<u8>().ok().and_then(|m| ymd(y, m, Some(a))) {
                r.push(m);
            }
            if let Some(m) = a.parse::<u8>().ok().and_then(|m| ymd(y, m, Some(b)))
                && !r.contains(&m)
            {
                r.push(m);
            }
            r
        } else {
            Vec::new()
        };
        if !readings.is_empty() {
            out.push(Date {
                text: whole.as_str().to_string(),
                span: (whole.start(), whole.end()),
                readings,
            });
        }
    }
    out
}

/// Whether a claimed date (any reading) is among the source's dates: a day
/// needs the same day; a month matches any day of that month.
pub fn date_supported(claim: &Date, source: &HashSet<String>) -> bool {
    claim.readings.iter().any(|r| source.contains(r))
}

/// The keys a source date contributes: the full reading and its month.
pub fn date_keys(d: &Date) -> Vec<String> {
    let mut out = Vec::new();
    for r in &d.readings {
        out.push(r.clone());
        if r.len() == 10 {
            out.push(r[..7].to_string());
        }
    }
    out
}

/// Words (maximal runs of letters and digits) with their byte offsets.
pub fn words(text: &str) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            out.push((&text[s..i], s));
        }
    }
    if let Some(s) = start {
        out.push((&text[s..], s));
    }
    out
}

/// Capitalised words that are not names.
const NOT_NAMES: &[&str] = &[
    "the",
    "a",
    "an",
    "its",
    "it",
    "this",
    "that",
    "these",
    "those",
    "i",
    "we",
    "our",
    "they",
    "their",
    "he",
    "she",
    "his",
    "her",
    "in",
    "on",
    "at",
    "as",
    "for",
    "from",
    "by",
    "with",
    "and",
    "or",
    "but",
    "of",
    "to",
    "per",
    "according",
    "note",
    "however",
    "also",
    "usd",
    "inr",
    "eur",
    "gbp",
    "rs",
    "us$",
];

/// Words that may sit inside a name (`Reserve Bank of India`).
/// Capitalised words that are not names: the list and calendar words.
fn is_not_name(lower: &str) -> bool {
    NOT_NAMES.contains(&lower) || crate::document::is_calendar_word(lower)
}

const NAME_JOINERS: &[&str] = &["of", "and", "for", "de", "la", "van", "von", "da"];

/// A run of capitalised words in a claim (`Anita Rao`, `PadmaPay`, `RBI`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    /// The lowercase words, joiners left out.
    pub parts: Vec<String>,
}

fn is_capitalised(w: &str) -> bool {
    w.chars().next().is_some_and(char::is_uppercase)
}

/// Camel case, an acronym or a word with digits: a name even at the start
/// of a sentence.
fn is_marked_name(w: &str) -> bool {
    w.chars()
        .skip(1)
        .any(|c| c.is_uppercase() || c.is_ascii_digit())
        && w.chars().any(char::is_alphabetic)
}

/// Names in a claim (typographic quotes already folded, case kept). A word
/// starting a sentence counts only when it is marked as a name.
pub fn names(text: &str) -> Vec<Name> {
    let ws = words(text);
    let mut out: Vec<Name> = Vec::new();
    let mut current: Option<(usize, usize, Vec<String>)> = None;
    let mut pending_joiner: Option<usize> = None;
    for (i, &(w, at)) in ws.iter().enumerate() {
        let lower = w.to_lowercase();
        let initial = i == 0 || {
            let before = text[..at].trim_end();
            before.is_empty() || before.ends_with(['.', '!', '?', ':', '"', '(', '\'', '*'])
        };
        let candidate =
            |w: &str| is_capitalised(w) && w.chars().count() > 1 && !is_not_name(&w.to_lowercase());
        // A sentence's first word is a name when marked as one or followed
        // by another capitalised word (`Anita Rao is ...`).
        let next_is_name = ws
            .get(i + 1)
            .is_some_and(|&(n, n_at)| candidate(n) && text[at + w.len()..n_at] == *" ");
        let name_word = candidate(w) && (!initial || is_marked_name(w) || next_is_name);
        // Adjacent only when separated by spaces or a hyphen.
        let adjacent = |end: usize| text[end..at].chars().all(|c| c == ' ' || c == '-');
        if name_word {
            match current.as_mut() {
                Some((_, end, parts)) if adjacent(*end) || pending_joiner.is_some() => {
                    parts.push(lower);
                    *end = at + w.len();
                }
                _ => {
                    flush(text, &mut current, &mut out);
                    current = Some((at, at + w.len(), vec![lower]));
                }
            }
            pending_joiner = None;
        } else if current.is_some()
            && NAME_JOINERS.contains(&lower.as_str())
            && current.as_ref().is_some_and(|c| adjacent(c.1))
            && pending_joiner.is_none()
        {
            pending_joiner = Some(i);
            if let Some(c) = current.as_mut() {
                c.1 = at + w.len();
            }
        } else {
            if pending_joiner.take().is_some()
                && let Some(c) = current.as_mut()
            {
                drop_trailing_joiner(text, c);
            }
            flush(text, &mut current, &mut out);
        }
    }
    if pending_joiner.is_some()
        && let Some(c) = current.as_mut()
    {
        drop_trailing_joiner(text, c);
    }
    flush(text, &mut current, &mut out);
    out
}

/// A trailing joiner ("of", "de", ...) is not part of the name: the span
/// ends before its last word.
fn drop_trailing_joiner(text: &str, c: &mut (usize, usize, Vec<String>)) {
    let trimmed = text[c.0..c.1]
        .rsplit_once(' ')
        .map(|x| x.0.len())
        .unwrap_or(0);
    c.1 = c.0 + trimmed;
}

fn flush(text: &str, current: &mut Option<(usize, usize, Vec<String>)>, out: &mut Vec<Name>) {
    if let Some((s, e, parts)) = current.take()
        && !parts.is_empty()
    {
        out.push(Name {
            text: text[s..e].to_string(),
            parts,
        });
    }
}

/// Initials of the capitalised runs of a text (`Reserve Bank of India` →
/// `rbi`), for acronym matching.
pub fn acronyms(text: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut run = String::new();
    for (w, _) in words(text) {
        let lower = w.to_lowercase();
        if is_capitalised(w) && !w.chars().all(|c| c.is_uppercase()) && !is_not_name(&lower) {
            if let Some(c) = lower.chars().next() {
                run.push(c);
            }
        } else if NAME_JOINERS.contains(&lower.as_str()) && !run.is_empty() {
            continue;
        } else {
            if (2..=6).contains(&run.chars().count()) {
                out.insert(std::mem::take(&mut run));
            }
            run.clear();
        }
    }
    if (2..=6).contains(&run.chars().count()) {
        out.insert(run);
    }
    out
}

/// Titles a report may abbreviate while a page spells them out (or the reverse).
pub const EQUIVALENTS: &[(&str, &[&str])] = &[
    ("ceo", &["chief", "executive"]),
    ("cfo", &["chief", "financial"]),
    ("cto", &["chief", "technology"]),
    ("coo", &["chief", "operating"]),
    ("md", &["managing", "director"]),
    ("licence", &["license"]),
    ("license", &["licence"]),
];

const STOPWORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "are",
    "was",
    "were",
    "been",
    "being",
    "has",
    "have",
    "had",
    "its",
    "it's",
    "this",
    "that",
    "these",
    "those",
    "with",
    "from",
    "into",
    "onto",
    "than",
    "then",
    "there",
    "their",
    "they",
    "them",
    "which",
    "who",
    "whom",
    "whose",
    "what",
    "when",
    "where",
    "while",
    "will",
    "would",
    "could",
    "should",
    "may",
    "might",
    "can",
    "not",
    "but",
    "also",
    "about",
    "after",
    "before",
    "over",
    "under",
    "such",
    "each",
    "both",
    "all",
    "any",
    "some",
    "more",
    "most",
    "other",
    "only",
    "own",
    "same",
    "very",
    "our",
    "your",
    "his",
    "her",
    "she",
    "him",
    "per",
    "via",
    "out",
    "off",
    "did",
    "does",
    "doing",
    "yet",
    "still",
    "just",
    "according",
    "reported",
    "reports",
    "report",
    "reporting",
    "states",
    "stated",
    "state",
    "says",
    "said",
    "notes",
    "noted",
    "source",
    "sources",
    "page",
    "confidence",
    "current",
    "currently",
    "earlier",
    "cited",
    "cites",
    "mentions",
    "mentioned",
    "shows",
    "describes",
    "described",
    "indicates",
    "indicated",
    "however",
    "therefore",
    "because",
    "since",
    "until",
    "within",
    "between",
    "among",
    "through",
    "during",
    "including",
    "includes",
    "include",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
];

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Stemmed key terms of folded text: words of three or more letters that are
/// not stopwords, deduplicated in order.
pub fn terms(folded: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (w, _) in words(folded) {
        if w.chars().count() < 3 || w.chars().any(|c| c.is_ascii_digit()) || STOPWORDS.contains(&w)
        {
            continue;
        }
        let stem = STEMMER.stem(w).into_owned();
        if !out.contains(&stem) {
            out.push(stem);
        }
    }
    out
}

/// [`terms`] with each word stemmed once (preparing a long page).
#[derive(Default)]
pub struct StemCache(std::collections::HashMap<String, Option<String>>);

impl StemCache {
    pub fn terms(&mut self, folded: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for (w, _) in words(folded) {
            let stem = self.0.entry(w.to_string()).or_insert_with(|| {
                let keep = w.chars().count() >= 3
                    && !w.chars().any(|c| c.is_ascii_digit())
                    && !STOPWORDS.contains(&w);
                keep.then(|| STEMMER.stem(w).into_owned())
            });
            if let Some(s) = stem
                && !out.contains(s)
            {
                out.push(s.clone());
            }
        }
        out
    }
}

/// The stem of one lowercase word (for the equivalents table).
pub fn stem(word: &str) -> String {
    STEMMER.stem(word).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(t: &str) -> Vec<String> {
        numbers(&fold(t))
            .into_iter()
            .map(|n| n.keys[0].clone())
            .collect()
    }

    #[test]
    fn numbers_compare_across_spellings() {
        assert_eq!(keys("1,200 merchants"), vec!["1200"]);
        assert_eq!(keys("1200 merchants"), vec!["1200"]);
        assert_eq!(keys("$12m"), keys("USD 12 million"));
        assert_eq!(keys("₹50 crore"), keys("500 million"));
        assert_eq!(keys("12,00,000"), vec!["1200000"]);
        assert_eq!(keys("1.9%"), keys("1.90 percent"));
        assert_ne!(keys("1.9%"), keys("1.5%"));
        assert_eq!(keys("3 outages"), keys("three outages"));
        assert_eq!(keys("12 months"), vec!["12"], "m of months is no scale");
        assert_eq!(keys("1,2,3"), vec!["1", "2", "3"], "a list is no separator");
    }

    #[test]
    fn dates_compare_across_spellings() {
        let r = |t: &str| -> Vec<String> {
            dates(&fold(t))
                .into_iter()
                .flat_map(|d| d.readings)
                .collect()
        };
        assert_eq!(r("on 5 March 2024"), vec!["2024-03-05"]);
        assert_eq!(r("on March 5th, 2024"), vec!["2024-03-05"]);
        assert_eq!(r("on 2024-03-05"), vec!["2024-03-05"]);
        assert_eq!(r("in Mar. 2024"), vec!["2024-03"]);
        assert_eq!(r("05/03/2024"), vec!["2024-03-05", "2024-05-03"]);
        assert_eq!(r("the 2023-24 plan"), Vec::<String>::new());
    }

    #[test]
    fn names_skip_sentence_starts_and_months() {
        let n: Vec<String> = names(
            "In March, Anita Rao became CEO of PadmaPay and the Reserve Bank of India agreed.",
        )
        .into_iter()
        .map(|n| n.text)
        .collect();
        assert_eq!(
            n,
            vec!["Anita Rao", "CEO of PadmaPay", "Reserve Bank of India"]
        );
        let n = names("PadmaPay's CEO");
        assert_eq!(n[0].parts, vec!["padmapay".to_string()]);
        assert!(acronyms("the Reserve Bank of India said").contains("rbi"));
        assert!(acronyms("The Reserve Bank of India said").contains("rbi"));
    }
}
