//! Word lists of the offline model: the thesaurus that widens an aspect to
//! the vocabulary sources use, the value kinds a fact sentence carries, and
//! stop words.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

/// Words that widen an aspect to the vocabulary sources use for it.
pub(super) const THESAURUS: &[(&[&str], &[&str])] = &[
    (
        &[
            "leadership",
            "ceo",
            "management",
            "founder",
            "executive",
            "leader",
            "director",
            "boss",
        ],
        &[
            "ceo",
            "chief executive",
            "founder",
            "co-founder",
            "managing director",
            "appointed",
            "leadership",
            "chairman",
            "president",
            "succeeds",
            "stepped down",
        ],
    ),
    (
        &[
            "licence",
            "license",
            "regulatory",
            "regulation",
            "authorisation",
            "authorization",
            "compliance",
            "certification",
            "accreditation",
            "permit",
        ],
        &[
            "licence",
            "license",
            "authorisation",
            "authorization",
            "approval",
            "registration",
            "registered",
            "regulator",
            "certification",
            "certified",
            "accreditation",
            "suspended",
            "reinstated",
            "permit",
            "compliance",
        ],
    ),
    (
        &[
            "funding",
            "investment",
            "investors",
            "capital",
            "financing",
            "raised",
            "valuation",
        ],
        &[
            "raised",
            "funding",
            "series",
            "round",
            "investor",
            "investment",
            "valuation",
            "led",
            "seed",
            "crore",
            "million",
        ],
    ),
    (
        &[
            "reliability",
            "uptime",
            "outage",
            "outages",
            "availability",
            "performance",
            "delivery",
            "downtime",
        ],
        &[
            "uptime",
            "outage",
            "downtime",
            "availability",
            "reliability",
            "on-time",
            "delivery",
            "disruption",
            "incident",
            "status",
        ],
    ),
    (
        &[
            "security",
            "breach",
            "incident",
            "incidents",
            "privacy",
            "data",
        ],
        &[
            "security",
            "breach",
            "exposed",
            "vulnerability",
            "leak",
            "disclosed",
            "attack",
            "misconfigured",
            "incident",
        ],
    ),
    (
        &[
            "pricing", "price", "prices", "fees", "fee", "cost", "costs", "rates", "rate", "tariff",
        ],
        &[
            "price", "pricing", "fee", "fees", "cost", "rate", "charge", "tariff", "discount",
            "plan", "per",
        ],
    ),
    (
        &[
            "sentiment",
            "reviews",
            "review",
            "reputation",
            "customers",
            "customer",
            "satisfaction",
            "merchant",
            "merchants",
        ],
        &[
            "review",
            "rating",
            "rated",
            "customer",
            "merchant",
            "complaint",
            "praise",
            "satisfaction",
            "feedback",
            "stars",
        ],
    ),
    (
        &["fleet", "trucks", "vehicles", "aircraft", "vessels"],
        &[
            "fleet", "trucks", "vehicles", "reefers", "aircraft", "vessels",
        ],
    ),
    (
        &[
            "capacity",
            "scale",
            "size",
            "footprint",
            "warehouses",
            "facilities",
        ],
        &[
            "warehouses",
            "capacity",
            "facilities",
            "locations",
            "sites",
            "pallet",
        ],
    ),
    (
        &["history", "background", "overview", "founded", "origin"],
        &[
            "founded",
            "established",
            "headquartered",
            "based",
            "history",
            "started",
        ],
    ),
];

pub(super) const STOP: &[&str] = &[
    "the", "and", "for", "with", "its", "their", "of", "in", "on", "to", "a", "an", "is", "are",
    "what", "how", "who", "which", "status", "current", "today", "any", "all", "about", "did",
    "does", "his", "her", "this", "that", "from", "into", "have", "has", "had", "was", "were",
    "when", "where", "why", "must", "will", "would", "could", "should", "can", "may", "might",
    "shall", "you", "your", "they", "them", "our", "she", "him", "each", "evidence", "listed",
];

pub(super) struct Terms {
    pub stems: BTreeSet<String>,
    pub phrases: Vec<String>,
    /// What a sentence stating this aspect's value contains.
    pub values: Vec<ValueKind>,
}

/// The shape of a value: a sentence that has one states a fact; a sentence
/// that only mentions the topic ("see our pricing page") does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueKind {
    Person,
    Status,
    Money,
    Percent,
    Rating,
    Count,
    Year,
    /// A version or release number ("Pelican 42", "version 3", "5.1").
    Version,
}

/// The value kinds of each thesaurus row, in the same order (a test checks
/// the two tables have the same length).
pub(super) const ROW_VALUES: &[&[ValueKind]] = &[
    &[ValueKind::Person],
    &[ValueKind::Status],
    &[ValueKind::Money],
    &[ValueKind::Percent],
    &[],
    &[ValueKind::Percent, ValueKind::Money],
    &[ValueKind::Rating],
    &[ValueKind::Count],
    &[ValueKind::Count],
    &[ValueKind::Year],
];

pub(super) fn has_value(kind: ValueKind, sentence: &str, entity: &str) -> bool {
    static MONEY: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::re(
            r"(?i)([$€£₹]\s?\d|\b(rs\.?|inr|usd|eur|gbp)\s?\d|\d\s?(million|billion|crore|lakh|m|bn)\b)",
        )
    });
    static PERCENT: LazyLock<regex::Regex> =
        LazyLock::new(|| crate::re(r"\d(\.\d+)?\s?(%|per\s?cent)"));
    static RATING: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::re(r"(?i)\d(\.\d)?\s?(out of|/)\s?(5|10)\b|\d(\.\d)?\s?stars?\b|rated\s+\d")
    });
    static COUNT: LazyLock<regex::Regex> = LazyLock::new(|| crate::re(r"\b\d[\d,]*\s+[a-z]"));
    static YEAR: LazyLock<regex::Regex> = LazyLock::new(|| crate::re(r"\b(19|20)\d\d\b"));
    static STATUS: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::re(
            r"(?i)\b(granted|authori[sz]ed|authori[sz]ation|approved|approval|licensed|registered|certified|valid|suspended|reinstated|revoked|cancelled|expired|pending|renewed|accredited)\b",
        )
    });
    static VERSION: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::re(r"(?i)\b(version|release|v)\s?\d+(\.\d+)*\b|\b\d+\.\d+(\.\d+)?\b")
    });
    static NAMED_NUMBER: LazyLock<regex::Regex> =
        LazyLock::new(|| crate::re(r"\b([A-Z][A-Za-z]+) (\d{1,3})\b"));
    let without_prereleases;
    let sentence = if kind == ValueKind::Version {
        without_prereleases = PRERELEASE.replace_all(sentence, " ");
        without_prereleases.as_ref()
    } else {
        sentence
    };
    match kind {
        ValueKind::Version => {
            // "Pelican 42": a name and a small number, not "On 3 June".
            const NOT_NAMES: &[&str] = &[
                "On", "In", "At", "By", "From", "Since", "Until", "To", "For", "Of", "The", "Page",
                "Section", "Chapter", "Figure", "Step", "Day", "Top", "Over", "Under", "About",
            ];
            VERSION.is_match(sentence)
                || NAMED_NUMBER.captures_iter(sentence).any(|c| {
                    let name = c.get(1).map_or("", |m| m.as_str());
                    let after = &sentence[c.get(0).map_or(0, |m| m.end())..];
                    let next = after.split_whitespace().next().unwrap_or("");
                    !NOT_NAMES.contains(&name)
                        && !crate::document::is_calendar_word(&name.to_lowercase())
                        && !crate::document::is_calendar_word(
                            &next
                                .trim_matches(|c: char| !c.is_alphabetic())
                                .to_lowercase(),
                        )
                })
        }
        ValueKind::Money => MONEY.is_match(sentence),
        ValueKind::Percent => PERCENT.is_match(sentence),
        ValueKind::Rating => RATING.is_match(sentence),
        ValueKind::Count => COUNT.is_match(sentence),
        ValueKind::Year => YEAR.is_match(sentence),
        ValueKind::Status => STATUS.is_match(sentence),
        ValueKind::Person => {
            // Two capitalised words in a row that are not the entity's name.
            let entity_words: Vec<&str> = entity.split_whitespace().collect();
            let words: Vec<&str> = sentence
                .split(|c: char| !(c.is_alphanumeric() || c == '-'))
                .filter(|w| !w.is_empty())
                .collect();
            words.windows(2).enumerate().any(|(i, w)| {
                let cap = |s: &str| {
                    s.chars().next().is_some_and(char::is_uppercase)
                        && s.chars().skip(1).all(|c| c.is_lowercase())
                };
                i > 0
                    && cap(w[0])
                    && cap(w[1])
                    && !entity_words.contains(&w[0])
                    && !entity_words.contains(&w[1])
            })
        }
    }
}

/// A pre-release ("Pelican 41 beta", "5.0 rc1"): not a release.
static PRERELEASE: LazyLock<regex::Regex> = LazyLock::new(|| {
    crate::re(
        r"(?i)\b(?:[A-Z][A-Za-z]+\s+)?\d+(?:\.\d+)*\s*-?(?:beta|alpha|preview|nightly|rc\d*)\b",
    )
});

/// Whether a sentence names a version only as a pre-release ("came in with
/// Pelican 41 beta"): it tells of a test build, not of the release asked for.
pub(super) fn names_only_prereleases(sentence: &str) -> bool {
    PRERELEASE.is_match(sentence) && !has_value(ValueKind::Version, sentence, "")
}

pub(super) fn stemmer() -> Stemmer {
    Stemmer::create(Algorithm::English)
}

/// British spellings that differ from American ones in a part of the word:
/// the British part, the American part, and whether the part may sit
/// anywhere in the word (a stem: "licenc" in "licensing") or only at its
/// end ("yse" in "analyse").
const SPELLING_PARTS: &[(&str, &str, bool)] = &[
    ("licenc", "licens", true),
    ("defenc", "defens", true),
    ("offenc", "offens", true),
    ("pretenc", "pretens", true),
    ("isation", "ization", true),
    ("yse", "yze", false),
    ("ysed", "yzed", false),
    ("ysing", "yzing", false),
];
/// Whole British words whose American form is not a regular ending.
const SPELLING_WORDS: &[(&str, &str)] = &[
    ("centre", "center"),
    ("centres", "centers"),
    ("metre", "meter"),
    ("metres", "meters"),
    ("litre", "liter"),
    ("litres", "liters"),
    ("colour", "color"),
    ("colours", "colors"),
    ("behaviour", "behavior"),
    ("behaviours", "behaviors"),
    ("favour", "favor"),
    ("labour", "labor"),
    ("neighbour", "neighbor"),
    ("neighbours", "neighbors"),
    ("catalogue", "catalog"),
    ("programme", "program"),
    ("programmes", "programs"),
    ("cancelled", "canceled"),
    ("modelling", "modeling"),
    ("travelling", "traveling"),
    ("authorise", "authorize"),
    ("authorised", "authorized"),
    ("organise", "organize"),
    ("organised", "organized"),
    ("recognise", "recognize"),
    ("recognised", "recognized"),
    ("standardise", "standardize"),
    ("standardised", "standardized"),
    ("optimise", "optimize"),
    ("optimised", "optimized"),
    ("minimise", "minimize"),
    ("maximise", "maximize"),
];

/// The other spelling of a lower-case word, British for American and
/// American for British ("licence" and "license", "authorisation" and
/// "authorization"), when it has one we know.
pub(super) fn other_spelling(word: &str) -> Option<String> {
    respell(word, true).or_else(|| respell(word, false))
}

/// One spelling for a word or stem: the American one where we know a
/// British form ("licenc" and "licens" are one term). A sentence that uses
/// both spellings says the term once.
pub(super) fn spelling_key(word: &str) -> String {
    respell(word, true).unwrap_or_else(|| word.to_string())
}

/// The word in the other spelling one way: British to American
/// (`to_american`) or back; `None` when it has no such form we know.
fn respell(word: &str, to_american: bool) -> Option<String> {
    let pick = |gb: &'static str, us: &'static str| if to_american { (gb, us) } else { (us, gb) };
    for (gb, us) in SPELLING_WORDS {
        let (from, to) = pick(gb, us);
        if from == word {
            return Some(to.to_string());
        }
    }
    for (gb, us, anywhere) in SPELLING_PARTS {
        let (from, to) = pick(gb, us);
        if let Some(at) = word.find(from)
            && (*anywhere || at + from.len() == word.len())
        {
            return Some(format!("{}{}{}", &word[..at], to, &word[at + from.len()..]));
        }
    }
    None
}

/// The words of a text, lowercased. An identifier (`pg_start_backup`,
/// `jsonb_path_ops`) is a word, as in the vote
/// ([`crate::answer::vote::terms_of`]), and so is each of its parts: the
/// identifier singles out the page that documents it, its parts still say
/// what it is about ("jsonb").
pub(super) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .map(|w| w.trim_matches('_'))
        .filter(|w| !w.is_empty())
        .flat_map(|w| {
            let parts = w
                .contains('_')
                .then(|| w.split('_').filter(|p| !p.is_empty()));
            std::iter::once(w).chain(parts.into_iter().flatten())
        })
        .map(|w| w.to_lowercase())
}

/// An aspect's words asking for the good and bad points of something.
const PROS_AND_CONS: &[&str] = &[
    "strengths",
    "weaknesses",
    "pros",
    "cons",
    "advantages",
    "disadvantages",
];

/// The words pages list good and bad points under.
const ADVANTAGE_WORDS: &[&str] = &[
    "advantage",
    "advantages",
    "disadvantage",
    "disadvantages",
    "benefit",
    "benefits",
    "drawback",
    "drawbacks",
    "downside",
    "downsides",
    "limitation",
    "limitations",
];

/// For an aspect asking for strengths and weaknesses, the words a second
/// search tries as alternatives ("advantages", "disadvantages"); empty
/// otherwise.
pub(super) fn pros_and_cons_words(aspect: &str) -> Vec<&'static str> {
    if words(aspect).any(|w| PROS_AND_CONS.contains(&w.as_str())) {
        vec!["advantages", "disadvantages"]
    } else {
        vec![]
    }
}

/// Words that widen the verbs of any question ("what changed", "which
/// cities adopted", "what must publishers change") to the words pages use
/// when they answer it. Used for scoring sentences, not for queries.
const QUESTION_VERBS: &[(&[&str], &[&str])] = &[
    (
        &["changed", "change", "changes", "different", "differ"],
        &[
            "replaces",
            "replaced",
            "renames",
            "renamed",
            "adds",
            "added",
            "removes",
            "removed",
            "instead",
            "deprecated",
            "no longer",
            "now",
        ],
    ),
    (
        &["adopted", "adopt", "adoption", "adopters"],
        &[
            "switched",
            "publish",
            "publishes",
            "certified",
            "rolled out",
            "launched",
            "uses",
        ],
    ),
    (
        &["must", "required", "requirement", "requirements", "need"],
        &["must", "required", "mandatory", "obligation", "have to"],
    ),
    (
        &[
            "introduced",
            "introduce",
            "introduces",
            "launched",
            "brought",
        ],
        &[
            "adds",
            "added",
            "introduces",
            "introducing",
            "switches",
            "switched",
            "shipped",
            "ships",
            "debuted",
        ],
    ),
    (
        &["strip", "strips", "remove", "removes", "hide", "hides"],
        &["removes", "removed", "strips", "hides", "hidden", "drops"],
    ),
    // What a comparison's "strengths and weaknesses" are called where a
    // page lists them.
    (PROS_AND_CONS, ADVANTAGE_WORDS),
    // A comparative names a dimension; a sentence measuring it in another
    // word of that dimension answers ("faster" by "no performance
    // difference", "the slowest of the three").
    (
        &[
            "faster", "fast", "fastest", "slower", "slow", "slowest", "quicker", "speed",
        ],
        &[
            "faster",
            "fastest",
            "slower",
            "slowest",
            "performance",
            "speed",
            "overhead",
        ],
    ),
    // How something is worked out is told by what determines it ("the
    // affinity of a column is determined by ...").
    (
        &[
            "work out",
            "works out",
            "figure out",
            "figures out",
            "decide",
            "decides",
            "determine",
            "determines",
        ],
        &[
            "determined",
            "determines",
            "determine",
            "decided",
            "decides",
            "derived",
            "computed",
        ],
    ),
    // A choice between items is answered by a recommendation.
    (
        &["choose", "choice", "recommend", "recommended", "prefer"],
        &[
            "recommended",
            "recommend",
            "recommends",
            "preferred",
            "prefer",
            "should use",
            "better",
            "best",
        ],
    ),
    (
        &["space", "bigger", "smaller", "storage"],
        &["space", "storage", "bytes", "larger", "smaller"],
    ),
];

/// The words that tell what holds when nothing is chosen.
const DEFAULT_WORDS: &[&str] = &["default", "omitted", "otherwise"];

/// An aspect that asks what holds when the user chooses nothing, without
/// the words of that condition: a negated condition on the asker ("if I
/// don't say", "if you do not set") or a choice left out ("when
/// unspecified", "if omitted"). `None` when it asks something else.
fn left_out(aspect: &str) -> Option<String> {
    static LEFT_OUT: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::re(
            r"(?i)\b(?:if|when|unless) (?:i|you|we|they|one|the user) (?:don'?t|do not|didn'?t|did not|never)(?: \w+)?|\b(?:(?:if|when) (?:it is |it's )?)?(?:unspecified|not specified|omitted|left out)\b|\bwithout specifying\b",
        )
    });
    let text = aspect.replace('\u{2019}', "'");
    LEFT_OUT
        .is_match(&text)
        .then(|| LEFT_OUT.replace_all(&text, " ").into_owned())
}

/// The aspect's own stems, and with `thesaurus` the words and value kinds
/// of the thesaurus rows its words belong to.
pub(super) fn terms_for(aspect: &str, thesaurus: bool) -> Terms {
    let st = stemmer();
    // "Which one applies if I don't say" asks for the default: what holds
    // when nothing is chosen. The words of the condition are not what a
    // sentence about it holds.
    let left_out = left_out(aspect);
    let aspect = left_out.as_deref().unwrap_or(aspect);
    // "Which one" asks for one of the things named before: "one" is a
    // pronoun there, not a number.
    static WHICH_ONE: LazyLock<regex::Regex> =
        LazyLock::new(|| crate::re(r"(?i)\b(which|what)\s+ones?\b"));
    let pronoun = WHICH_ONE.replace_all(aspect, "$1");
    let aspect = pronoun.as_ref();
    let aspect_words: Vec<String> = words(aspect)
        .filter(|w| !STOP.contains(&w.as_str()) && w.len() > 2)
        .collect();
    // The aspect's own words in both spellings: "licence" finds "License".
    let mut stems: BTreeSet<String> = aspect_words
        .iter()
        .flat_map(|w| [Some(w.clone()), other_spelling(w)])
        .flatten()
        .map(|w| st.stem(&w).into_owned())
        .collect();
    if left_out.is_some() {
        stems.extend(DEFAULT_WORDS.iter().map(|w| st.stem(w).into_owned()));
    }
    let mut phrases = Vec::new();
    let mut values = Vec::new();
    for (row, (keys, expansions)) in THESAURUS.iter().enumerate() {
        if thesaurus && aspect_words.iter().any(|w| keys.contains(&w.as_str())) {
            for v in ROW_VALUES.get(row).copied().unwrap_or_default() {
                if !values.contains(v) {
                    values.push(*v);
                }
            }
            for e in *expansions {
                if e.contains(' ') {
                    phrases.push(e.to_string());
                } else {
                    stems.insert(st.stem(e).into_owned());
                }
            }
        }
    }
    // Keys of two words ("work out") are matched as a phrase.
    let spaced = format!(" {} ", words(aspect).collect::<Vec<_>>().join(" "));
    for (keys, expansions) in QUESTION_VERBS {
        let asked = |k: &&str| {
            if k.contains(' ') {
                spaced.contains(&format!(" {k} "))
            } else {
                aspect_words.iter().any(|w| w == k)
            }
        };
        if keys.iter().any(asked) {
            for e in *expansions {
                if e.contains(' ') {
                    phrases.push(e.to_string());
                } else {
                    stems.insert(st.stem(e).into_owned());
                }
            }
        }
    }
    // The question word says what kind of value answers the aspect.
    let all: Vec<String> = words(aspect).collect();
    let first = all.first().map(String::as_str);
    // "When did X take effect" asks a date; "when does SQLite checkpoint"
    // a condition ([`crate::answer::expected`]), which no year answers.
    let asks_when_date = first == Some("when") && crate::answer::expected(aspect).is_date();
    if (asks_when_date || all.iter().any(|w| w == "date" || w == "dates"))
        && !values.contains(&ValueKind::Year)
    {
        values.push(ValueKind::Year);
    }
    if all
        .iter()
        .any(|w| w == "version" || w == "versions" || w == "release")
    {
        values.push(ValueKind::Version);
    }
    if first == Some("how") && all.get(1).is_some_and(|w| w == "many") {
        values.push(ValueKind::Count);
    }
    Terms {
        stems,
        phrases,
        values,
    }
}

pub(super) fn expansion_words(aspect: &str) -> Vec<&'static str> {
    let aspect_words: Vec<String> = words(aspect).collect();
    THESAURUS
        .iter()
        .filter(|(keys, _)| aspect_words.iter().any(|w| keys.contains(&w.as_str())))
        .flat_map(|(_, e)| e.iter().copied().filter(|w| !w.contains(' ')))
        .filter(|w| !aspect_words.iter().any(|a| a == w))
        .take(4)
        .collect()
}

#[cfg(test)]
mod tests {

    #[test]
    fn strengths_and_weaknesses_are_searched_as_advantages() {
        assert_eq!(
            super::pros_and_cons_words("WAL mode: strengths and weaknesses"),
            ["advantages", "disadvantages"]
        );
        assert!(super::pros_and_cons_words("Differences between WAL and rollback").is_empty());
        // A sentence listing advantages holds the aspect's terms.
        let t = super::terms_for("Quokka: strengths and weaknesses", false);
        let st = super::stemmer();
        assert!(t.stems.contains(&st.stem("advantages").into_owned()));
    }

    #[test]
    fn how_something_is_worked_out_is_told_by_what_determines_it() {
        let st = stemmer();
        let determined = st.stem("determined").into_owned();
        for asked in [
            "How does Quokka work out a column's kind from the type I declare",
            "How does Quokka decide which plan to use",
        ] {
            assert!(
                terms_for(asked, false).stems.contains(&determined),
                "{asked}"
            );
        }
        // "work" alone ("How does WAL work") is another question.
        assert!(
            !terms_for("How does write-ahead logging work", false)
                .stems
                .contains(&determined)
        );
    }

    #[test]
    fn a_choice_left_out_asks_for_the_default() {
        let st = stemmer();
        for (asked, left) in [
            ("which one applies if I don't say", "which one applies"),
            (
                "What mode does Quokka use if you do not set one?",
                "What mode does Quokka use one?",
            ),
            (
                "What encoding is used when unspecified?",
                "What encoding is used ?",
            ),
        ] {
            let got = left_out(asked).unwrap_or_default();
            assert_eq!(
                got.split_whitespace().collect::<Vec<_>>(),
                left.split_whitespace().collect::<Vec<_>>(),
                "{asked}"
            );
            let stems = terms_for(asked, false).stems;
            assert!(stems.contains(st.stem("default").as_ref()), "{asked}");
            assert!(
                !stems.contains("say") && !stems.contains("set"),
                "{stems:?}"
            );
        }
        for other in [
            "What did the council say about the plan?",
            "If I want WAL mode, what do I run?",
            "Which options can I set?",
        ] {
            assert_eq!(left_out(other), None, "{other}");
        }
    }

    #[test]
    fn aspect_words_match_both_spellings() {
        for (gb, us) in [
            ("licence", "license"),
            ("licences", "licenses"),
            ("licencing", "licensing"),
            ("authorisation", "authorization"),
            ("analysed", "analyzed"),
            ("centre", "center"),
            ("behaviour", "behavior"),
        ] {
            assert_eq!(other_spelling(gb).as_deref(), Some(us), "{gb}");
            assert_eq!(other_spelling(us).as_deref(), Some(gb), "{us}");
        }
        assert_eq!(other_spelling("analyses"), None);
        assert_eq!(other_spelling("throughput"), None);
        let st = stemmer();
        let terms = terms_for("Quillstore licence", false);
        assert!(terms.stems.contains(st.stem("license").as_ref()));
        assert_eq!(
            spelling_key(&st.stem("licence")),
            spelling_key(&st.stem("license"))
        );
    }

    use super::*;

    #[test]
    fn version_numbers_are_values_of_version_aspects() {
        let t = terms_for(
            "Which Pelican version introduced the current algorithm",
            false,
        );
        assert!(t.values.contains(&ValueKind::Version));
        for s in [
            "With Pelican 42, Calm Read switches to a density scorer.",
            "Version 3 took effect.",
            "Quillstore 5.1 raised the limit.",
        ] {
            assert!(has_value(ValueKind::Version, s, ""), "{s}");
        }
        assert!(names_only_prereleases(
            "The new algorithm came in with Pelican 41 beta."
        ));
        assert!(!names_only_prereleases(
            "The density scorer shipped in Pelican 42 (it was in 41 beta builds only behind a flag)."
        ));
        for s in [
            "On 3 June 2025 the council voted.",
            "Pelican does not send the page to any server.",
            "It started in March 2024.",
        ] {
            assert!(!has_value(ValueKind::Version, s, ""), "{s}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_version_test_never_panics(s in "\\PC{0,80}") {
            let _ = has_value(ValueKind::Version, &s, "");
        }
    }

    #[test]
    fn every_thesaurus_row_has_its_value_kinds() {
        assert_eq!(THESAURUS.len(), ROW_VALUES.len());
    }
}
