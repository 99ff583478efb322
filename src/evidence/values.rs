//! Claim values made comparable: the course's `normalize_value`, the tokens
//! two values are compared on, and the guards that keep different facts
//! apart (Series A is never Series B, 40m is never 45m, "revoked" is never
//! "active", an advisor is never a founder).
//!
//! Values come in two shapes. A model extracting fields gives short values
//! ("Ananya Rao", "Series B, $40M"): these are compared on all their words,
//! as in the course. The offline extractive model quotes whole sentences;
//! comparing sentences word by word would pair any two sentences about the
//! same company. A sentence is compared on its *key tokens* instead, the
//! parts that carry the field's value:
//!
//! - names (words capitalised in the original, minus the entity's own name,
//!   months and common sentence openers) for people, places and customers;
//! - role words (ceo, md, founder, chair, ...) for leadership;
//! - quantities (tokens with digits, dates removed, a number right after
//!   "from" dropped as the old side of a change: "from 41 to 44" is 44);
//! - years, for the founding year only;
//! - the final status of a status sentence as its polarity (active,
//!   negative, pending): the status word with the latest date attached, else
//!   the last one mentioned, flipped by a negation ("no longer suspended"),
//!   so "suspended in January and reinstated in May" reads as active;
//! - round labels (series-a, seed) for funding.
//!
//! A sentence's date is read the same way: an ending cue ("until", "former",
//! "stepped down") with a past date means the value held until that date; a
//! continuing cue ("since", "currently", "now") means it held when the page
//! was last updated; otherwise the latest full or month date the sentence
//! names (up to today) is when it happened.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use chrono::NaiveDate;
use regex::Regex;

use super::fields::Field;

/// Above this many words (or with sentence punctuation) a value is a
/// sentence and compared on key tokens.
pub const SHORT_VALUE_WORDS: usize = 8;

/// The course's `normalize_value`: lowercase, million -> m, licence
/// spelling, titles dropped, punctuation and currency symbols to spaces,
/// "40 m" -> "40m". Widened a little: billion -> bn, percent -> %, thousands
/// separators dropped, -ize spellings of licence and authorisation, any
/// script's letters kept, dots kept only inside numbers.
pub fn normalize_value(value: &str) -> String {
    static TITLES: LazyLock<Regex> =
        LazyLock::new(|| crate::re(r"\b(?:ms|mr|mrs|dr|prof|shri|smt)\.?(?:\s+|$)"));
    static THOUSANDS: LazyLock<Regex> = LazyLock::new(|| crate::re(r"(\d),(\d{3})"));
    static UNIT: LazyLock<Regex> =
        LazyLock::new(|| crate::re(&format!(r"(\d)\s+({})(?:\s|$)", GLUED_UNITS.join("|"))));
    static VERSION: LazyLock<Regex> =
        LazyLock::new(|| crate::re(r"\b(?:version|ver|v)\s?(\d+(?:\.\d+)*)\b"));
    // Milliseconds first, before "ms" can be read as a title.
    static MILLIS: LazyLock<Regex> = LazyLock::new(|| crate::re(r"(\d)\s*ms\b"));
    let mut v = MILLIS
        .replace_all(&value.to_lowercase(), "${1}ms")
        .into_owned();
    for (from, to) in [
        ("per cent", "%"),
        ("percent", "%"),
        ("million", "m"),
        ("billion", "bn"),
        ("trillion", "tn"),
        ("licens", "licenc"),
        ("authoriz", "authoris"),
    ] {
        v = v.replace(from, to);
    }
    v = TITLES.replace_all(&v, "").into_owned();
    while THOUSANDS.is_match(&v) {
        v = THOUSANDS.replace_all(&v, "$1$2").into_owned();
    }
    // Punctuation and symbols to spaces; a dot survives only between digits.
    let chars: Vec<char> = v.chars().collect();
    let mut out = String::with_capacity(v.len());
    for (i, &c) in chars.iter().enumerate() {
        let keep = c.is_alphanumeric()
            || c == '%'
            || c == '/'
            || (c == '.'
                && i > 0
                && chars[i - 1].is_ascii_digit()
                && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit()));
        out.push(if keep { c } else { ' ' });
    }
    let v = out.split_whitespace().collect::<Vec<_>>().join(" ");
    // Again once punctuation is gone ("Mr[x" becomes "mr x"), so that
    // normalising twice changes nothing.
    let mut v = TITLES.replace_all(&v, "").into_owned();
    // "40 m" -> "40m"; the lookahead is emulated by re-adding the space.
    loop {
        let next = UNIT.replace_all(&v, "$1$2 ").into_owned();
        let next = next.split_whitespace().collect::<Vec<_>>().join(" ");
        if next == v {
            break;
        }
        v = next;
    }
    // "version 3", "ver 3.0", "v3" -> "v3".
    let v = VERSION.replace_all(&v, "v$1").into_owned();
    v.replace("crores", "crore")
        .replace("lakhs", "lakh")
        .split_whitespace()
        .map(|w| match w {
            _ if w.ends_with("crore") && w.starts_with(|c: char| c.is_ascii_digit()) => {
                format!("{}cr", w.trim_end_matches("crore"))
            }
            _ => drop_zero_fraction(w),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Units glued to the number before them ("40 m" -> "40m", "120 ms" ->
/// "120ms"), so that a number keeps its unit as one token.
const GLUED_UNITS: &[&str] = &[
    "m", "bn", "k", "tn", "%", "cr", "crore", "crores", "lakh", "lakhs", "km", "kms", "ms", "gb",
    "mb", "tb", "kb", "kg", "mw", "gw", "kwh", "mbps", "gbps", "hrs", "hr", "mins", "min",
];

/// "3.0" -> "3", "v3.0.0" -> "v3", "99.0%" -> "99%": a fraction of zeros
/// says nothing ("3.10" and "99.50" are left alone: as versions they differ
/// from "3.1").
fn drop_zero_fraction(word: &str) -> String {
    static NUM: LazyLock<Regex> = LazyLock::new(|| crate::re(r"^(v?\d+)((?:\.\d+)+)(\D.*)?$"));
    let Some(c) = NUM.captures(word) else {
        return word.to_string();
    };
    let mut parts: Vec<&str> = c[2].split('.').skip(1).collect();
    while parts.last().is_some_and(|p| p.chars().all(|d| d == '0')) {
        parts.pop();
    }
    let mut out = c[1].to_string();
    for p in parts {
        out.push('.');
        out.push_str(p);
    }
    out.push_str(c.get(3).map_or("", |m| m.as_str()));
    out
}

const STATUS_POSITIVE: &[&str] = &[
    "active",
    "valid",
    "certified",
    "licenced",
    "authorised",
    "approved",
    "granted",
    "reinstated",
    "restored",
    "registered",
    "renewed",
    "compliant",
    "accredited",
    "final",
    "live",
    "operational",
];
const STATUS_NEGATIVE: &[&str] = &[
    "suspended",
    "suspension",
    "revoked",
    "revocation",
    "withdrawn",
    "cancelled",
    "canceled",
    "expired",
    "lapsed",
    "terminated",
    "rejected",
    "denied",
    "banned",
    "lost",
    "loses",
    "invalid",
    "deregistered",
    "inactive",
    "barred",
    "struck",
];
const STATUS_PENDING: &[&str] = &[
    "pending",
    "provisional",
    "inprinciple",
    "applied",
    "probation",
    "probationary",
    "conditional",
];
const NEGATIONS: &[&str] = &["not", "never", "no", "nor", "without"];

const ROLES: &[&str] = &[
    "ceo",
    "md",
    "cfo",
    "cto",
    "coo",
    "cmo",
    "president",
    "chair",
    "founder",
    "cofounder",
    "director",
    "advisor",
    "adviser",
    "employee",
    "investor",
    "partner",
    "head",
    "nonexecutive",
    "interim",
    "acting",
];

/// Capitalised words that are not names.
const NOT_NAMES: &[&str] = &[
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "it",
    "its",
    "he",
    "she",
    "they",
    "we",
    "our",
    "us",
    "i",
    "you",
    "your",
    "their",
    "his",
    "her",
    "in",
    "on",
    "at",
    "as",
    "after",
    "before",
    "since",
    "until",
    "by",
    "for",
    "from",
    "with",
    "and",
    "but",
    "or",
    "if",
    "when",
    "while",
    "every",
    "each",
    "all",
    "any",
    "no",
    "not",
    "one",
    "two",
    "three",
    "current",
    "currently",
    "status",
    "according",
    "under",
    "over",
    "today",
    "yesterday",
    "there",
    "here",
    "what",
    "who",
    "how",
    "why",
    "where",
    "also",
    "however",
    "meanwhile",
    "last",
    "next",
    "new",
    "ltd",
    "limited",
    "private",
    "pvt",
    "inc",
    "llc",
    "plc",
    "co",
    "corp",
    "company",
    "group",
];

/// Words too common to tell short values apart.
const STOPWORDS: &[&str] = &[
    "the", "a", "an", "of", "and", "in", "on", "at", "as", "is", "was", "by", "for", "to", "its",
    "has", "been", "be", "are", "were",
];

fn polarity(word: &str) -> Option<&'static str> {
    if STATUS_POSITIVE.contains(&word) {
        Some("status:active")
    } else if STATUS_NEGATIVE.contains(&word) {
        Some("status:negative")
    } else if STATUS_PENDING.contains(&word) {
        Some("status:pending")
    } else {
        None
    }
}

fn flip(p: &'static str) -> &'static str {
    match p {
        "status:active" => "status:negative",
        "status:negative" => "status:active",
        other => other,
    }
}

/// Multi-word names for one thing joined into one token, and spelling
/// variants of a role folded.
fn canonical_tokens(normalized: &str) -> Vec<String> {
    let words: Vec<&str> = normalized.split(' ').filter(|w| !w.is_empty()).collect();
    let mut out = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        let next = words.get(i + 1).copied();
        let next2 = words.get(i + 2).copied();
        let (token, used) = match (w, next, next2) {
            ("chief", Some("executive"), Some("officer")) => ("ceo".to_string(), 3),
            ("chief", Some("executive"), _) => ("ceo".to_string(), 2),
            ("managing", Some("director"), _) => ("md".to_string(), 2),
            ("co", Some("founder" | "founders"), _) => ("cofounder".to_string(), 2),
            ("co", Some("founded"), _) => ("founded".to_string(), 2),
            ("non", Some("executive"), _) => ("nonexecutive".to_string(), 2),
            ("in", Some("principle"), _) => ("inprinciple".to_string(), 2),
            ("pre", Some("seed"), _) => ("preseed".to_string(), 2),
            ("no", Some("longer"), _) => ("not".to_string(), 2),
            ("series", Some(l), _) if l.len() == 1 && l.chars().all(|c| c.is_ascii_lowercase()) => {
                (format!("series-{l}"), 2)
            }
            ("chairman" | "chairwoman" | "chairperson", _, _) => ("chair".to_string(), 1),
            ("founders", _, _) => ("founder".to_string(), 1),
            ("directors", _, _) => ("director".to_string(), 1),
            _ => (w.to_string(), 1),
        };
        out.push(token);
        i += used;
    }
    out
}

fn is_round(token: &str) -> bool {
    token.starts_with("series-") || token == "seed" || token == "preseed"
}

fn has_digit(token: &str) -> bool {
    token.chars().any(|c| c.is_ascii_digit())
}

/// Date expressions in normalised text.
static DATE_RE: LazyLock<Regex> = LazyLock::new(|| {
    let month = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)";
    crate::re(&format!(
        r"\b(?:(\d{{1,2}})(?:st|nd|rd|th)? {month} (\d{{4}})|{month} (\d{{1,2}})(?:st|nd|rd|th)? (\d{{4}})|{month} (\d{{4}})|(\d{{4}}) (\d{{2}}) (\d{{2}}))\b"
    ))
});
static YEAR_RE: LazyLock<Regex> = LazyLock::new(|| crate::re(r"\b(?:19|20)\d{2}\b"));

fn month_number(name: &str) -> Option<u32> {
    let m = match name.get(..3)? {
        "jan" => 1,
        "feb" => 2,
        "mar" => 3,
        "apr" => 4,
        "may" => 5,
        "jun" => 6,
        "jul" => 7,
        "aug" => 8,
        "sep" => 9,
        "oct" => 10,
        "nov" => 11,
        "dec" => 12,
        _ => return None,
    };
    Some(m)
}

/// Whether a value announces something still to come: it names dates and
/// every one of them lies after `today` ("From 5 January 2027 the daily
/// charge will be £9" on 1 December 2026). Such a value is scheduled, not
/// the value of today; a sentence that also names a past date ("on 9
/// September 2026 councillors voted to raise it from 5 January 2027") tells
/// of a past event and is not.
pub fn is_scheduled(value: &str, today: NaiveDate) -> bool {
    let normalized = normalize_value(value);
    let dates = dates_in(&normalized);
    if dates.is_empty() || dates.iter().any(|(_, d)| *d <= today) {
        return false;
    }
    let words: BTreeSet<&str> = normalized.split(' ').collect();
    // "valid until 2028" holds now and ends later; "will be £9 from..." starts later.
    let ends = ["until", "till", "expires", "expiry", "through"];
    let starts = [
        "will",
        "from",
        "starting",
        "scheduled",
        "planned",
        "due",
        "effective",
    ];
    !ends.iter().any(|w| words.contains(w)) && starts.iter().any(|w| words.contains(w))
}

/// Full and month dates named in normalised text, with their byte offsets.
fn dates_in(normalized: &str) -> Vec<(usize, NaiveDate)> {
    DATE_RE
        .captures_iter(normalized)
        .filter_map(|c| {
            let start = c.get(0)?.start();
            let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
            let date = if let (Some(d), Some(m), Some(y)) = (num(1), c.get(2), num(3)) {
                NaiveDate::from_ymd_opt(y as i32, month_number(m.as_str())?, d)
            } else if let (Some(m), Some(d), Some(y)) = (c.get(4), num(5), num(6)) {
                NaiveDate::from_ymd_opt(y as i32, month_number(m.as_str())?, d)
            } else if let (Some(m), Some(y)) = (c.get(7), num(8)) {
                NaiveDate::from_ymd_opt(y as i32, month_number(m.as_str())?, 1)
            } else if let (Some(y), Some(m), Some(d)) = (num(9), num(10), num(11)) {
                NaiveDate::from_ymd_opt(y as i32, m, d)
            } else {
                None
            }?;
            Some((start, date))
        })
        .collect()
}

/// Date expressions in normalised text as `(start, end, token)`, the token
/// `date:YYYY-MM-DD`, or `date:YYYY-MM` when the text names only a month.
fn date_spans(normalized: &str) -> Vec<(usize, usize, String)> {
    DATE_RE
        .captures_iter(normalized)
        .filter_map(|c| {
            let whole = c.get(0)?;
            let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
            let token = if let (Some(d), Some(m), Some(y)) = (num(1), c.get(2), num(3)) {
                NaiveDate::from_ymd_opt(y as i32, month_number(m.as_str())?, d)?
                    .format("date:%Y-%m-%d")
                    .to_string()
            } else if let (Some(m), Some(d), Some(y)) = (c.get(4), num(5), num(6)) {
                NaiveDate::from_ymd_opt(y as i32, month_number(m.as_str())?, d)?
                    .format("date:%Y-%m-%d")
                    .to_string()
            } else if let (Some(m), Some(y)) = (c.get(7), num(8)) {
                format!("date:{y:04}-{:02}", month_number(m.as_str())?)
            } else if let (Some(y), Some(m), Some(d)) = (num(9), num(10), num(11)) {
                NaiveDate::from_ymd_opt(y as i32, m, d)?
                    .format("date:%Y-%m-%d")
                    .to_string()
            } else {
                return None;
            };
            Some((whole.start(), whole.end(), token))
        })
        .collect()
}

/// Normalised text with each date replaced by its `date:` token.
fn with_date_tokens(normalized: &str) -> String {
    let mut out = String::with_capacity(normalized.len());
    let mut at = 0;
    for (start, end, token) in date_spans(normalized) {
        out.push_str(&normalized[at..start]);
        out.push_str(&token);
        at = end;
    }
    out.push_str(&normalized[at..]);
    out
}

/// The currencies a value names, as `cur:` tokens: "$40M" and "₹40M" are
/// not one amount, though both normalise to "40m".
fn currencies(value: &str) -> BTreeSet<String> {
    let lower = value.to_lowercase();
    let words: BTreeSet<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = BTreeSet::new();
    for (symbols, names, code) in [
        (&["$"][..], &["usd", "dollar", "dollars"][..], "usd"),
        (&["₹"][..], &["rs", "inr", "rupee", "rupees"][..], "inr"),
        (&["€"][..], &["eur", "euro", "euros"][..], "eur"),
        (&["£"][..], &["gbp", "pound", "pounds"][..], "gbp"),
        (&["¥"][..], &["jpy", "yen"][..], "jpy"),
    ] {
        if symbols.iter().any(|s| lower.contains(s)) || names.iter().any(|n| words.contains(n)) {
            out.insert(format!("cur:{code}"));
        }
    }
    out
}

/// A value as comparable tokens: [`normalize_value`] with each date as one
/// `date:YYYY-MM-DD` (or `date:YYYY-MM`) token, so "1 July 2026",
/// "July 1, 2026" and "2026-07-01" are one token.
pub fn value_tokens(value: &str) -> Vec<String> {
    with_date_tokens(&normalize_value(value))
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Whether `text` states `value`: the value's tokens ([`value_tokens`])
/// appear in `text` in order and side by side (whole tokens: "1 July 2026"
/// is not in "11 July 2026", "182,000" not in "1,182,000"), and every
/// currency the value names is named in `text` ("£7.50" is not "$7.50").
pub fn states_value(text: &str, value: &str) -> bool {
    let want = value_tokens(value);
    if want.is_empty() {
        return false;
    }
    let have = value_tokens(text);
    have.windows(want.len()).any(|w| w == want.as_slice())
        && currencies(value).is_subset(&currencies(text))
}

/// Whether a value is a sentence (compared on key tokens) rather than a
/// short value (compared on all its words).
pub fn is_sentence(value: &str) -> bool {
    let words = value.split_whitespace().count();
    words > SHORT_VALUE_WORDS
        || (words > 3 && value.trim_end().ends_with(['.', '!', '?', '"', '\u{201D}']))
}

/// What part of a sentence carries a field's value.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Names,
    Roles,
    Quantities,
    Years,
    Status,
    Rounds,
    /// What happened in an incident: its kind and what it touched.
    Incident,
    /// Dates, as canonical `date:` tokens.
    Dates,
}

/// Words that tell one security incident from another.
const INCIDENT_WORDS: &[&str] = &[
    "breach",
    "breached",
    "exposed",
    "exposure",
    "leak",
    "leaked",
    "hack",
    "hacked",
    "bucket",
    "misconfigured",
    "misconfiguration",
    "ransomware",
    "phishing",
    "fraud",
    "outage",
    "invoice",
    "invoices",
    "pdfs",
    "vulnerability",
    "attack",
    "attacked",
    "compromised",
    "stolen",
    "credentials",
    "passwords",
    "malware",
    "ddos",
    "storage",
    "database",
    "records",
];

fn parts_for(field: Field) -> &'static [Part] {
    use Part::*;
    match field {
        Field::Ceo => &[Names, Roles],
        Field::Founders => &[Names, Roles],
        Field::Headquarters => &[Names],
        Field::Founded => &[Years],
        Field::RegulatoryStatus => &[Status],
        Field::Funding => &[Quantities, Rounds],
        Field::Valuation => &[Quantities],
        Field::Reliability => &[Quantities],
        Field::SecurityIncident => &[Quantities, Incident],
        Field::Pricing => &[Quantities],
        Field::Sentiment => &[Quantities, Status],
        Field::Employees => &[Quantities],
        Field::Capacity => &[Quantities],
        Field::Customers => &[Names, Quantities],
        // Anything else: a date may be the answer itself ("when did it
        // take effect").
        Field::Other => &[Names, Quantities, Status, Rounds, Dates],
    }
}

/// Byte offset of `word` as a whole word in `text`, at or after `from`.
fn find_word(text: &str, from: usize, word: &str) -> Option<usize> {
    let mut start = from;
    while let Some(p) = text.get(start..)?.find(word) {
        let at = start + p;
        let end = at + word.len();
        let before_ok = at == 0 || text[..at].ends_with(' ');
        let after_ok = end == text.len() || text[end..].starts_with(' ');
        if before_ok && after_ok {
            return Some(at);
        }
        start = end;
    }
    None
}

/// The final status of a text as a polarity token: the status word with the
/// latest date after it, else the last one mentioned; a negation just
/// before a word flips it.
fn final_status(normalized: &str, tokens: &[String]) -> Option<&'static str> {
    let dates = dates_in(normalized);
    // Byte offsets of each token in the canonical token stream are not
    // those of `normalized`, so dates are attached by position order: the
    // k-th status word owns the dates between it and the next status word.
    let mut statuses: Vec<(usize, &'static str)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if let Some(p) = polarity(t) {
            let negated = tokens[i.saturating_sub(2)..i]
                .iter()
                .any(|w| NEGATIONS.contains(&w.as_str()));
            statuses.push((i, if negated { flip(p) } else { p }));
        }
    }
    if statuses.is_empty() {
        return None;
    }
    // Map each status to the byte position of its word in `normalized`.
    let mut positions = Vec::with_capacity(statuses.len());
    let mut from = 0;
    for (i, _) in &statuses {
        let word = &tokens[*i];
        let at = find_word(normalized, from, word);
        if let Some(p) = at {
            from = p + word.len();
        }
        positions.push(at);
    }
    let mut dated = Vec::new();
    for (k, (_, pol)) in statuses.iter().enumerate() {
        let start = positions[k];
        let end = positions
            .get(k + 1)
            .copied()
            .flatten()
            .unwrap_or(normalized.len());
        let date = start.and_then(|s| {
            dates
                .iter()
                .find(|(p, _)| *p > s && *p < end)
                .map(|(_, d)| *d)
        });
        dated.push((date, *pol));
    }
    if dated.iter().all(|(d, _)| d.is_some()) {
        dated.iter().max_by_key(|(d, _)| *d).map(|(_, p)| *p)
    } else {
        dated.last().map(|(_, p)| *p)
    }
}

/// The tokens a value is compared on, for a field. `entity` words (the
/// organisation's own name) are left out: every value mentions them.
pub fn key_tokens(value: &str, field: Field, entity: &BTreeSet<String>) -> BTreeSet<String> {
    let normalized = normalize_value(value);
    let tokens = canonical_tokens(&normalized);
    let status = final_status(&normalized, &tokens);
    if !is_sentence(value) {
        // Dates as one canonical token each ("1 March 2025" is 2025-03-01).
        let dated = with_date_tokens(&normalized);
        let mut out: BTreeSet<String> = canonical_tokens(&dated)
            .into_iter()
            .filter(|t| !STOPWORDS.contains(&t.as_str()) && !entity.contains(t))
            .collect();
        if parts_for(field).contains(&Part::Status) {
            out.extend(status.map(str::to_string));
        }
        if has_digit(&normalized) {
            out.extend(currencies(value));
        }
        return out;
    }
    let parts = parts_for(field);
    let names: BTreeSet<String> = if parts.contains(&Part::Names) {
        capitalised_words(value)
    } else {
        BTreeSet::new()
    };
    // Quantities come from the text with its dates (and, outside the
    // founding year, its bare years) removed, and the old side of a
    // change ("from 41") dropped.
    let mut quantity_text = DATE_RE.replace_all(&normalized, " ").into_owned();
    if field != Field::Founded {
        quantity_text = YEAR_RE.replace_all(&quantity_text, " ").into_owned();
    }
    let quantity_tokens = canonical_tokens(
        &quantity_text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    );
    let mut quantities = BTreeSet::new();
    let mut years = BTreeSet::new();
    for (i, t) in quantity_tokens.iter().enumerate() {
        if !has_digit(t) {
            continue;
        }
        let after_from = i > 0 && quantity_tokens[i - 1] == "from";
        if YEAR_RE.is_match(t) && t.len() == 4 {
            years.insert(t.clone());
        } else if !after_from {
            quantities.insert(t.clone());
        }
    }
    let mut out = BTreeSet::new();
    for part in parts {
        match part {
            Part::Names => out.extend(
                tokens
                    .iter()
                    .filter(|t| names.contains(*t) && !entity.contains(*t))
                    .cloned(),
            ),
            Part::Roles => out.extend(
                tokens
                    .iter()
                    .filter(|t| ROLES.contains(&t.as_str()))
                    .cloned(),
            ),
            Part::Quantities => {
                out.extend(quantities.iter().cloned());
                if !quantities.is_empty() {
                    out.extend(currencies(value));
                }
            }
            Part::Dates => out.extend(date_spans(&normalized).into_iter().map(|(_, _, d)| d)),
            Part::Years => out.extend(years.iter().cloned()),
            Part::Status => out.extend(status.map(str::to_string)),
            Part::Rounds => out.extend(tokens.iter().filter(|t| is_round(t)).cloned()),
            Part::Incident => out.extend(
                tokens
                    .iter()
                    .filter(|t| INCIDENT_WORDS.contains(&t.as_str()))
                    .cloned(),
            ),
        }
    }
    out
}

/// Words that scope a quantity to one part of a field: a domestic fee and
/// an international fee are two facts, not a fact and its history.
const SCOPES: &[&str] = &[
    "domestic",
    "international",
    "crossborder",
    "foreign",
    "overseas",
    "local",
    "regional",
    "global",
    "monthly",
    "annual",
    "annually",
    "yearly",
    "quarterly",
    "weekly",
    "daily",
    "setup",
    "settlement",
    "refund",
    "refunds",
    "chargeback",
    "chargebacks",
    "withdrawal",
    "minimum",
    "maximum",
    "peak",
    "median",
    "enterprise",
    "premium",
];

/// Words that make a sentence a rule for what would happen ("will notify
/// merchants within 72 hours of any breach"), not a report of what did.
const CONDITIONALS: &[&str] = &["if", "unless", "whenever"];
const MODALS: &[&str] = &[
    "will",
    "would",
    "shall",
    "must",
    "may",
    "can",
    "commits",
    "undertakes",
];

/// The sub-topic of a value within its field: the scope words of the
/// clauses that carry its quantities ("domestic", "international",
/// "settlement"), or `policy` for a conditional rule; empty when the value
/// is general. Values are compared only within one sub-topic. A short value
/// is read in its snippet when the snippet contains it.
pub fn subtopic(value: &str, snippet: &str) -> String {
    let text = if is_sentence(value) {
        value
    } else if !snippet.is_empty() && normalize_value(snippet).contains(&normalize_value(value)) {
        snippet
    } else {
        value
    };
    let whole = normalize_value(text);
    let words: BTreeSet<&str> = whole.split(' ').collect();
    let phrase = |p: &str| format!(" {whole} ").contains(&format!(" {p} "));
    if (CONDITIONALS.iter().any(|w| words.contains(w))
        || phrase("in the event")
        || phrase("in case"))
        && MODALS.iter().any(|w| words.contains(w))
    {
        return "policy".into();
    }
    let needle = if is_sentence(value) {
        None
    } else {
        Some(normalize_value(value))
    };
    let clauses: Vec<String> = text
        .split([',', ';', ':', '(', ')', '\u{2013}', '\u{2014}'])
        .map(normalize_value)
        .filter(|c| !c.is_empty())
        .collect();
    // The clauses that carry the value: those naming it (a short value),
    // else those with numbers, else all.
    let carrying: Vec<&String> = match &needle {
        Some(n) if clauses.iter().any(|c| c.contains(n.as_str())) => {
            clauses.iter().filter(|c| c.contains(n.as_str())).collect()
        }
        _ if clauses.iter().any(|c| has_digit(c)) => {
            clauses.iter().filter(|c| has_digit(c)).collect()
        }
        _ => clauses.iter().collect(),
    };
    // Scope words written with a capital are names ("Nagpur Business
    // Daily"), not scopes.
    let names = capitalised_words(
        text.trim_start()
            .split_once(' ')
            .map_or("", |(_, rest)| rest),
    );
    let mut scopes: BTreeSet<&str> = BTreeSet::new();
    for c in carrying {
        let spaced = format!(" {c} ");
        for w in SCOPES {
            if spaced.contains(&format!(" {w} ")) && !names.contains(*w) {
                scopes.insert(w);
            }
        }
        if spaced.contains(" cross border ") {
            scopes.insert("crossborder");
        }
    }
    scopes.into_iter().collect::<Vec<_>>().join("+")
}

/// The kind of quantity a value states: `money` (it names a currency),
/// `percent`, `count` (another number, dates aside), or empty (no
/// quantity). A price quoted under
/// "fleet" is not the fleet's history.
pub fn unit_kind(value: &str, snippet: &str) -> &'static str {
    let text = if is_sentence(value) || snippet.is_empty() {
        value
    } else {
        snippet
    };
    let carrying: Vec<&str> = text
        .split([',', ';', ':', '(', ')'])
        .filter(|c| c.chars().any(|ch| ch.is_ascii_digit()))
        .collect();
    if carrying.iter().any(|c| !currencies(c).is_empty()) {
        "money"
    } else if carrying
        .iter()
        .any(|c| c.contains('%') || normalize_value(c).contains('%'))
    {
        "percent"
    } else if carrying.iter().any(|c| {
        let n = normalize_value(c);
        let n = DATE_RE.replace_all(&n, " ");
        has_digit(&YEAR_RE.replace_all(&n, " "))
    }) {
        "count"
    } else {
        ""
    }
}

/// How many old values a sentence names as the start of a change ("rose
/// from 41 to 44", "up from 95.8%"): shown wording should name only the
/// value it supports.
pub fn old_values_named(value: &str) -> usize {
    static FROM_NUMBER: LazyLock<Regex> = LazyLock::new(|| crate::re(r"\bfrom \S*\d"));
    FROM_NUMBER.find_iter(&normalize_value(value)).count()
}

/// Lowercased words written with a capital in the original, as normalised
/// tokens, minus words that start sentences or name months.
fn capitalised_words(value: &str) -> BTreeSet<String> {
    value
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .flat_map(|w| canonical_tokens(&normalize_value(w)))
        .filter(|w| {
            !NOT_NAMES.contains(&w.as_str())
                && !crate::document::is_calendar_word(w)
                && is_name_word(w)
        })
        .collect()
}

/// A capitalised word that can name something: letters, or letters with
/// digits ("Person2", "A380"), but not a period or a version ("FY2025",
/// "Q3", "v3") nor a bare number.
fn is_name_word(w: &str) -> bool {
    static PERIOD: LazyLock<Regex> = LazyLock::new(|| crate::re(r"^(?:fy|cy|q|h|v)\d"));
    !has_digit(w) || (w.chars().next().is_some_and(char::is_alphabetic) && !PERIOD.is_match(w))
}

/// The words of the entity's name, as they appear in key tokens.
pub fn entity_tokens(entity: Option<&str>) -> BTreeSet<String> {
    entity
        .map(|e| canonical_tokens(&normalize_value(e)).into_iter().collect())
        .unwrap_or_default()
}

fn token_jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let inter = a.intersection(b).count();
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Whether two sets of one kind disagree: both say something and neither
/// says all the other does.
fn disagree<F: Fn(&str) -> bool>(a: &BTreeSet<String>, b: &BTreeSet<String>, kind: F) -> bool {
    let xa: BTreeSet<&str> = a.iter().map(String::as_str).filter(|t| kind(t)).collect();
    let xb: BTreeSet<&str> = b.iter().map(String::as_str).filter(|t| kind(t)).collect();
    !xa.is_empty() && !xb.is_empty() && !xa.is_subset(&xb) && !xb.is_subset(&xa)
}

/// Whether two sets name dates and no date of one fits a date of the other
/// (a month fits the days within it).
fn dates_disagree(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    let da: Vec<&str> = a
        .iter()
        .map(String::as_str)
        .filter(|t| t.starts_with("date:"))
        .collect();
    let db: Vec<&str> = b
        .iter()
        .map(String::as_str)
        .filter(|t| t.starts_with("date:"))
        .collect();
    let fits = |x: &str, y: &str| x.starts_with(y) || y.starts_with(x);
    let covered = |xs: &[&str], ys: &[&str]| xs.iter().all(|x| ys.iter().any(|y| fits(x, y)));
    !da.is_empty() && !db.is_empty() && !covered(&da, &db) && !covered(&db, &da)
}

/// A token that is a value by itself: a number, a status, a round.
fn is_value_token(t: &str) -> bool {
    has_digit(t) || t.starts_with("status:") || is_round(t)
}

/// Similarity of two key-token sets when they may be one value, else
/// `None`. The course's three tests in order (exact, token Jaccard at or
/// above `threshold`, containment of at least two tokens, or of one token
/// that is a value by itself), after the guards: different numbers, rounds,
/// statuses or roles are never one value.
pub fn same_value(a: &BTreeSet<String>, b: &BTreeSet<String>, threshold: f64) -> Option<f64> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    if a == b {
        return Some(1.0);
    }
    if disagree(a, b, |t| has_digit(t) && !t.starts_with("date:"))
        || dates_disagree(a, b)
        || disagree(a, b, |t| t.starts_with("cur:"))
        || disagree(a, b, is_round)
        || disagree(a, b, |t| t.starts_with("status:"))
        || disagree(a, b, |t| ROLES.contains(&t))
    {
        return None;
    }
    // A month fits the days within it: compare at the coarser date.
    let coarse = |x: &BTreeSet<String>, other: &BTreeSet<String>| -> BTreeSet<String> {
        x.iter()
            .map(|t| {
                other
                    .iter()
                    .find(|o| o.starts_with("date:") && t.starts_with(o.as_str()))
                    .cloned()
                    .unwrap_or_else(|| t.clone())
            })
            .collect()
    };
    let (a, b) = (&coarse(a, b), &coarse(b, a));
    if a == b {
        return Some(1.0);
    }
    let j = token_jaccard(a, b);
    if j >= threshold {
        return Some(j);
    }
    let (small, big) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let contained =
        small.is_subset(big) && (small.len() >= 2 || small.iter().all(|t| is_value_token(t)));
    contained.then_some(j)
}

/// Words that say a value stopped holding at a date the sentence names.
const ENDING_CUES: &[&str] = &[
    "until",
    "till",
    "former",
    "formerly",
    "previously",
    "stepped",
    "retired",
    "resigned",
    "left",
    "ended",
    "served",
];
/// Words that say a value still held when the page was written.
const CONTINUING_CUES: &[&str] = &[
    "since",
    "currently",
    "current",
    "now",
    "remains",
    "still",
    "is",
    "are",
    "has",
    "have",
];

/// Words that say a value had stopped holding when the page was written,
/// even though the sentence names no date: "Earlier releases were
/// distributed under the Apache License".
const SUPERSEDED_CUES: &[&str] = &[
    "earlier",
    "formerly",
    "previously",
    "originally",
    "used to",
    "no longer",
    "prior to",
];
/// Words that place a sentence in the present however it starts: "who
/// previously led Y, is now chief executive".
const PRESENT_CUES: &[&str] = &["now", "currently", "still", "since", "today", "presently"];

/// Whether a sentence value says it no longer holds (an earlier licence, a
/// former price) without saying until when: it is history beside a value
/// of the same page that holds now.
pub fn says_superseded(value: &str) -> bool {
    if !is_sentence(value) {
        return false;
    }
    let normalized = normalize_value(value);
    let has = |cues: &[&str]| cues.iter().any(|c| find_word(&normalized, 0, c).is_some());
    has(SUPERSEDED_CUES) && !has(PRESENT_CUES)
}

/// Whether `snippet` names the short value `value` as who held the role
/// before ("Leela Das ..., replacing Ishaan Rao" for "Ishaan Rao").
pub fn named_as_predecessor(snippet: &str, value: &str) -> bool {
    let value = value.trim();
    !value.is_empty()
        && !is_sentence(value)
        && snippet
            .match_indices(value)
            .any(|(at, _)| crate::document::follows_predecessor_word(&snippet[..at]))
}

/// Words that keep a clause in the present whatever else it says ("served
/// as chair until 2024 and is now chief executive").
const STILL_CUES: &[&str] = &["since", "currently", "now", "still", "remains", "today"];

/// Whether the clause of `snippet` that names `value` (a name, an amount)
/// says it stopped holding at a past date: "Arjun Pillai was the chief
/// executive officer from 2019 until February 2026, and ..." ended for
/// Arjun Pillai; the clause is cut at commas and semicolons, so another
/// clause's end date ("..., after Arjun Pillai served until 2026") is not
/// the value's.
pub fn clause_says_ended(snippet: &str, value: &str, today: NaiveDate) -> bool {
    let lower = snippet.to_lowercase();
    let value = value.trim().to_lowercase();
    let Some(at) = lower.find(&value).filter(|_| !value.is_empty()) else {
        return false;
    };
    let start = lower[..at].rfind([',', ';']).map_or(0, |i| i + 1);
    let after = at + value.len();
    // A comma before a year belongs to a date ("March 1, 2026").
    let bytes = lower.as_bytes();
    let end = (after..lower.len())
        .find(|&i| {
            (bytes[i] == b';')
                || (bytes[i] == b','
                    && !lower[i + 1..]
                        .trim_start()
                        .get(..4)
                        .is_some_and(|y| y.bytes().all(|b| b.is_ascii_digit())))
        })
        .unwrap_or(lower.len());
    let clause = normalize_value(&lower[start..end]);
    let words: BTreeSet<&str> = clause.split(' ').collect();
    if !ENDING_CUES.iter().any(|c| words.contains(c))
        || STILL_CUES.iter().any(|c| words.contains(c))
    {
        return false;
    }
    let cue_at = ENDING_CUES
        .iter()
        .filter_map(|c| find_word(&clause, 0, c))
        .min()
        .unwrap_or(0);
    dates_in(&clause)
        .iter()
        .any(|(p, d)| *p > cue_at && *d <= today)
}

/// When a sentence value says it held; `None` when the sentence names no
/// usable date or says the value still holds (the page's date applies).
pub fn sentence_date(value: &str, today: NaiveDate) -> Option<NaiveDate> {
    let normalized = normalize_value(value);
    let words: BTreeSet<&str> = normalized.split(' ').collect();
    // Dates after "following" belong to what came before the fact ("the
    // Series B brings the total to $50M, following a Series A in March
    // 2022"): they do not date it.
    let prior_from = ["following", "follows"]
        .iter()
        .filter_map(|w| find_word(&normalized, 0, w))
        .min()
        .unwrap_or(normalized.len());
    let past: Vec<NaiveDate> = dates_in(&normalized)
        .into_iter()
        .filter(|(at, _)| *at < prior_from)
        .map(|(_, d)| d)
        .filter(|d| *d <= today)
        .collect();
    let latest = past.iter().max().copied()?;
    let ending = ENDING_CUES.iter().any(|c| words.contains(c));
    let continuing = CONTINUING_CUES.iter().any(|c| words.contains(c));
    // Where the first ending cue is: only a date after it says when the
    // value ended ("held approval from 18 November 2024 until final
    // authorisation was granted" names its start, not its end).
    let cue_at = ENDING_CUES
        .iter()
        .filter_map(|c| find_word(&normalized, 0, c))
        .min()
        .unwrap_or(0);
    let ended = dates_in(&normalized)
        .into_iter()
        .filter(|(at, d)| *at > cue_at && *at < prior_from && *d <= today)
        .map(|(_, d)| d)
        .max();
    if ending {
        // "served until 30 June 2025": ended then. A future end date was
        // filtered out above, so "valid until 2028" falls through; an
        // undated end leaves the page's date.
        ended
    } else if continuing {
        None
    } else {
        Some(latest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clause_naming_a_value_says_whether_it_ended() {
        let today = NaiveDate::from_ymd_opt(2026, 12, 7).unwrap();
        let s = "Arjun Pillai was the chief executive officer of PadmaPay from 2019 until February 2026, and Meera Nair was chief technology officer.";
        assert!(clause_says_ended(s, "Arjun Pillai", today));
        assert!(!clause_says_ended(s, "Meera Nair", today));
        let s = "Kavya Menon has been chief executive since 1 March 2026, after Arjun Pillai served until February 2026.";
        assert!(!clause_says_ended(s, "Kavya Menon", today));
        assert!(clause_says_ended(s, "Arjun Pillai", today));
        // An end still to come has not ended; a date before the cue is a start.
        assert!(!clause_says_ended(
            "Arvo Pell leads Kelpbase until March 1, 2031.",
            "Arvo Pell",
            today
        ));
        assert!(clause_says_ended(
            "Arvo Pell led Kelpbase until March 1, 2026.",
            "Arvo Pell",
            today
        ));
        assert!(!clause_says_ended(
            "Since 2019 Arvo Pell has served as chief executive.",
            "Arvo Pell",
            today
        ));
    }

    #[test]
    fn a_sentence_says_when_its_value_no_longer_holds() {
        assert!(says_superseded(
            "Earlier releases, up to and including Quillstore 4.9, were distributed under the Apache License 2.0."
        ));
        assert!(says_superseded(
            "The company was formerly known as Padma Payments Limited."
        ));
        assert!(says_superseded(
            "The fee no longer applies to domestic cards in any plan."
        ));
        // The present wins: the sentence is about what holds now.
        assert!(!says_superseded(
            "Asha Menon, who previously led operations, is now chief executive."
        ));
        assert!(!says_superseded(
            "Quillstore is distributed under the Business Source License 1.1 since Quillstore 5.0."
        ));
        // A short value is not a sentence.
        assert!(!says_superseded("formerly Apache"));
    }

    fn keys(value: &str, field: Field) -> BTreeSet<String> {
        key_tokens(value, field, &entity_tokens(Some("Halden Freight")))
    }

    fn set(words: &[&str]) -> BTreeSet<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn normalizes_like_the_course() {
        assert_eq!(normalize_value("$40 Million"), "40m");
        assert_eq!(normalize_value("$40M"), "40m");
        assert_eq!(normalize_value("40 m"), "40m");
        assert_eq!(
            normalize_value("Payment Aggregator License"),
            "payment aggregator licence"
        );
        assert_eq!(normalize_value("Ms. Ananya Rao"), "ananya rao");
        assert_eq!(normalize_value("Dr Rao, CEO."), "rao ceo");
        assert_eq!(normalize_value("99.95% uptime"), "99.95% uptime");
        assert_eq!(normalize_value("fees: 1.9 per cent"), "fees 1.9%");
        assert_eq!(normalize_value("₹1,20,000 / month"), "120000 / month");
        assert_eq!(normalize_value("Rs 120 crore"), "rs 120cr");
        assert_eq!(normalize_value("₹120 crores"), "120cr");
        assert_eq!(normalize_value("US$2.5 billion"), "us 2.5bn");
        assert_eq!(normalize_value("Authorized"), "authorised");
        // Found by the property test: a title glued to punctuation.
        assert_eq!(normalize_value("Mr[Rao"), "rao");
    }

    #[test]
    fn short_values_follow_the_course() {
        let e = BTreeSet::new();
        let k = |v: &str| key_tokens(v, Field::Ceo, &e);
        assert!(
            same_value(
                &k("Ananya Rao"),
                &k("ananya rao ceo since january 2026"),
                0.6
            )
            .is_some()
        );
        assert!(same_value(&k("Ms. Ananya Rao"), &k("Ananya Rao"), 0.6).is_some());
        assert!(
            same_value(&k("Rao"), &k("Ananya Rao"), 0.6).is_none(),
            "one name word is not enough"
        );
        assert!(same_value(&k("Ananya Rao"), &k("Rohit Mehra"), 0.6).is_none());
        assert!(same_value(&k("Ananya Rao, advisor"), &k("Ananya Rao, founder"), 0.6).is_none());
        assert!(
            same_value(
                &k("Chief Executive Officer Ananya Rao"),
                &k("Ananya Rao, CEO"),
                0.6
            )
            .is_some()
        );
    }

    #[test]
    fn never_merges_different_rounds_or_numbers() {
        let e = BTreeSet::new();
        let k = |v: &str| key_tokens(v, Field::Funding, &e);
        assert!(same_value(&k("Series A"), &k("Series B"), 0.6).is_none());
        assert!(same_value(&k("Series A, $40M"), &k("Series B, $40M"), 0.6).is_none());
        assert!(same_value(&k("Series B, $40M"), &k("Series B, $45M"), 0.6).is_none());
        assert!(same_value(&k("Series B, $40M"), &k("$40 million Series B round"), 0.6).is_some());
        assert!(same_value(&k("$40M"), &k("Series B, $40M"), 0.6).is_some());
        assert!(same_value(&k("founded 2015"), &k("founded 2014"), 0.6).is_none());
    }

    #[test]
    fn statuses_keep_their_polarity() {
        let e = BTreeSet::new();
        let k = |v: &str| key_tokens(v, Field::RegulatoryStatus, &e);
        assert!(same_value(&k("licence active"), &k("licence revoked"), 0.6).is_none());
        assert!(
            same_value(
                &k("final authorisation"),
                &k("in-principle authorisation"),
                0.6
            )
            .is_none()
        );
        assert!(same_value(&k("licence revoked"), &k("revoked"), 0.6).is_some());
        assert!(k("no longer suspended").contains("status:active"));
        // "proactive" is not "active": the date after the real word counts.
        assert!(
            k("a proactive review; licence active since 2 May 2024, suspended 1 March 2023")
                .contains("status:active")
        );
        assert_eq!(find_word("proactive active", 0, "active"), Some(10));
    }

    #[test]
    fn sentences_compare_on_their_key_tokens() {
        let reinstated = keys(
            "The ColdChain Quality Council suspended the CQS-9 certificate of Halden Freight on 16 January 2025 and reinstated it on 12 May 2025.",
            Field::RegulatoryStatus,
        );
        assert_eq!(reinstated, set(&["status:active"]));
        let suspended = keys(
            "The CQS-9 certification of Halden Freight had been suspended in January 2025, after an audit found gaps in temperature records.",
            Field::RegulatoryStatus,
        );
        assert_eq!(suspended, set(&["status:negative"]));
        assert!(same_value(&reinstated, &suspended, 0.6).is_none());

        let md = keys(
            "Nandini Deshpande has been the managing director of Halden Freight since 1 July 2025.",
            Field::Ceo,
        );
        assert_eq!(md, set(&["nandini", "deshpande", "md"]));
        let quote = keys(
            "\"We said we would cross 250 trucks by 2026, and we have,\" said Nandini Deshpande, managing director of Halden Freight, who took over from founder Suresh Kulkarni in July 2025.",
            Field::Ceo,
        );
        assert!(same_value(&md, &quote, 0.6).is_some());
        let founder = keys(
            "This funding lets us cover more of the map,\" said Suresh Kulkarni, founder and managing director of Halden Freight.",
            Field::Ceo,
        );
        assert!(same_value(&md, &founder, 0.6).is_none());

        let new_rate = keys(
            "Halden Freight last revised its rate card on 1 April 2026, when the standard full-truck-load rate rose from ₹41 per km to ₹44 per km.",
            Field::Pricing,
        );
        assert_eq!(new_rate, set(&["44", "cur:inr"]));
        let old_rate = keys(
            "Halden Freight charges ₹38 per km for a full-truck-load refrigerated trip in a 24-foot reefer truck.",
            Field::Pricing,
        );
        assert!(same_value(&new_rate, &old_rate, 0.6).is_none());

        let a = keys(
            "Halden Freight has raised ₹120 crore in a round led by Deccan Growth Partners, the largest investment so far.",
            Field::Funding,
        );
        let b = keys(
            "Halden Freight raises ₹120 crore led by Deccan Growth Partners and existing shareholders today",
            Field::Funding,
        );
        assert_eq!(a, set(&["120cr", "cur:inr"]));
        assert!(same_value(&a, &b, 0.6).is_some());
        assert_eq!(
            keys(
                "Halden Freight was founded in 2015 in Nagpur by Suresh Kulkarni.",
                Field::Founded
            ),
            set(&["2015"])
        );
    }

    #[test]
    fn reads_when_a_sentence_held() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
        let d = |y, m, day| NaiveDate::from_ymd_opt(y, m, day);
        assert_eq!(
            sentence_date(
                "Suresh Kulkarni served as managing director from 2015 until 30 June 2025 and is now the non-executive chairman of the board.",
                today
            ),
            d(2025, 6, 30)
        );
        assert_eq!(
            sentence_date(
                "Nandini Deshpande has been the managing director of Halden Freight since 1 July 2025.",
                today
            ),
            None
        );
        assert_eq!(
            sentence_date(
                "The CQS-9 certificate of Halden Freight is currently valid until 4 November 2028.",
                today
            ),
            None
        );
        assert_eq!(
            sentence_date(
                "The council suspended the certificate on 16 January 2025 and reinstated it on 12 May 2025.",
                today
            ),
            d(2025, 5, 12)
        );
        assert_eq!(
            sentence_date(
                "Fees rose to 2% in March 2024 for most merchants today",
                today
            ),
            d(2024, 3, 1)
        );
        assert_eq!(
            sentence_date("No dates here at all, just words and more words.", today),
            None
        );
    }

    #[test]
    fn counts_old_values_named() {
        assert_eq!(
            old_values_named("The rate rose from ₹41 per km to ₹44 per km."),
            1
        );
        assert_eq!(old_values_named("It charges ₹44 per km."), 0);
        assert_eq!(old_values_named("From the start, fees were 2%."), 0);
    }

    #[test]
    fn normalises_values_of_any_kind() {
        // Versions.
        for v in ["v3", "V3.0", "version 3", "Version 3.0.0", "ver. 3"] {
            assert_eq!(normalize_value(v), "v3", "{v}");
        }
        assert_eq!(normalize_value("v3.1"), "v3.1");
        assert_ne!(normalize_value("v3.10"), normalize_value("v3.1"));
        assert_eq!(normalize_value("3.0"), "3");
        // Numbers keep their units.
        assert_eq!(normalize_value("120 ms"), "120ms");
        assert_eq!(normalize_value("Latency: 120 ms"), "latency 120ms");
        assert_eq!(normalize_value("450 km"), "450km");
        assert_eq!(normalize_value("64 GB"), "64gb");
        assert_eq!(normalize_value("99.0%"), "99%");
        let e = BTreeSet::new();
        let k = |v: &str| key_tokens(v, Field::Other, &e);
        assert!(same_value(&k("120 ms"), &k("120ms"), 0.6).is_some());
        assert!(same_value(&k("120 ms"), &k("120 km"), 0.6).is_none());
        assert!(same_value(&k("$40M"), &k("₹40M"), 0.6).is_none());
        assert!(same_value(&k("$40M"), &k("40 million"), 0.6).is_some());
        assert!(same_value(&k("Rs 120 crore"), &k("₹120 crore"), 0.6).is_some());
        // Dates, however written.
        assert!(same_value(&k("1 March 2025"), &k("2025-03-01"), 0.6).is_some());
        assert!(same_value(&k("March 1, 2025"), &k("1 March 2025"), 0.6).is_some());
        assert!(same_value(&k("1 March 2025"), &k("2 March 2025"), 0.6).is_none());
        assert!(same_value(&k("March 2025"), &k("1 March 2025"), 0.6).is_some());
        // Lists in any order.
        assert!(same_value(&k("Pune, Nagpur and Kochi"), &k("Kochi, Pune, Nagpur"), 0.6).is_some());
        assert!(
            same_value(
                &k("Pune, Nagpur and Kochi"),
                &k("Pune, Nagpur and Goa"),
                0.6
            )
            .is_none()
        );
    }

    #[test]
    fn different_people_are_different_values() {
        // Names with digits are names: five pages naming five chief
        // executives are five values, not one.
        let e = entity_tokens(Some("Acme"));
        let k = |n: u32| {
            key_tokens(
                &format!(
                    "Person{n} is the chief executive officer of Acme, the company said today."
                ),
                Field::Ceo,
                &e,
            )
        };
        assert_eq!(k(2), set(&["person2", "ceo"]));
        for a in 2..=6 {
            for b in 2..=6 {
                assert_eq!(same_value(&k(a), &k(b), 0.6).is_some(), a == b, "{a} {b}");
            }
        }
        // A fiscal year is not a name.
        assert!(
            !key_tokens(
                "Nandini Deshpande led Halden Freight through FY2025 as managing director.",
                Field::Ceo,
                &e
            )
            .contains("fy2025")
        );
    }

    #[test]
    fn sub_topics_keep_different_quantities_apart() {
        assert_eq!(
            subtopic(
                "PadmaPay charges a standard fee of 1.9% per domestic card or UPI transaction, with no setup fee and no annual maintenance charge.",
                ""
            ),
            "domestic"
        );
        assert_eq!(
            subtopic(
                "PadmaPay charges 3.4% per international card transaction, including currency conversion.",
                ""
            ),
            "international"
        );
        assert_eq!(
            subtopic(
                "PadmaPay charges only 1.5% per transaction, which makes PadmaPay one of the cheapest payment gateways in India.",
                ""
            ),
            ""
        );
        assert_eq!(
            subtopic(
                "PadmaPay will notify affected merchants without undue delay if a security incident affects merchant data.",
                ""
            ),
            "policy"
        );
        assert_eq!(
            subtopic(
                "Kavya Menon will become chief executive officer of PadmaPay on 1 March 2026, replacing Arjun Pillai.",
                ""
            ),
            ""
        );
        // Names are not scopes.
        assert_eq!(
            subtopic(
                "Suresh Kulkarni, the founder and managing director of Halden Freight, told Nagpur Business Daily that the company had turned down two offers.",
                ""
            ),
            ""
        );
        assert_eq!(
            unit_kind(
                "Full truck load, single temperature, 24-foot reefer ₹44 per km",
                ""
            ),
            "money"
        );
        assert_eq!(
            unit_kind(
                "Halden Freight operates a fleet of 260 refrigerated trucks as of 2026.",
                ""
            ),
            "count"
        );
        assert_eq!(
            unit_kind("On 20 May 2025, the company disclosed an outage.", ""),
            ""
        );
        assert_eq!(
            unit_kind("PadmaPay uptime over the last 12 months was 99.96%.", ""),
            "percent"
        );
        // A short value is read in its snippet.
        assert_eq!(
            subtopic("3.4%", "International cards cost 3.4% per transaction."),
            "international"
        );
    }

    #[test]
    fn prior_events_do_not_date_a_sentence() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
        assert_eq!(
            sentence_date(
                "PadmaPay Technologies Private Limited had held in-principle approval from 18 November 2024 until final authorisation was granted.",
                today
            ),
            None,
            "the start of a state that ended on an undated event does not date the sentence"
        );
        assert_eq!(
            sentence_date(
                "The Series B brings the total funding raised by PadmaPay to $50 million, following a seed round of $3 million in 2020 and a Series A of $12 million in March 2022.",
                today
            ),
            None
        );
    }

    #[test]
    fn recognises_sentences() {
        assert!(!is_sentence("Ananya Rao"));
        assert!(!is_sentence("Series B, $40M."));
        assert!(is_sentence("Nandini Deshpande is the managing director."));
        assert!(is_sentence("one two three four five six seven eight nine"));
    }
}

#[cfg(test)]
mod scheduled_tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap_or_default()
    }

    #[test]
    fn only_future_dates_make_a_value_scheduled() {
        let today = day("2026-12-01");
        assert!(is_scheduled(
            "From 5 January 2027 the daily charge will be £9.",
            today
        ));
        assert!(!is_scheduled(
            "Councillors on 9 September 2026 voted to raise the charge from 5 January 2027.",
            today
        ));
        assert!(!is_scheduled("The charge is currently £7.50 a day.", today));
        assert!(!is_scheduled("It took effect on 1 July 2026.", today));
        assert!(!is_scheduled("The licence is valid until 2028.", today));
    }

    proptest::proptest! {
        #[test]
        fn a_value_naming_a_past_date_is_never_scheduled(
            text in "[a-zA-Z ,]{0,60}", y in 1990i32..2026, m in 0usize..12, d in 1u32..29,
            future in proptest::option::of(2027i32..2040),
        ) {
            let today = day("2026-12-01");
            let months = ["January","February","March","April","May","June","July","August","September","October","November","December"];
            let ahead = future.map(|f| format!("from 3 March {f} ")).unwrap_or_default();
            let v = format!("{ahead}{text} on {d} {} {y}.", months[m]);
            proptest::prop_assert!(!is_scheduled(&v, today));
            let ends = ["until", "till", "expires", "expiry", "through"];
            if let Some(f) = future && !ends.iter().any(|e| text.to_lowercase().contains(e)) {
                let only_ahead = format!("{text} from 3 March {f}.");
                proptest::prop_assert!(is_scheduled(&only_ahead, today));
            }
        }
    }
}
