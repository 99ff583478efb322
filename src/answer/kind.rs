//! What kind of value answers a question: read from its question word and
//! the class noun it asks about ("which *country*", "what was the
//! *revenue*"), the classic answer-type taxonomy of question answering.

use serde::{Deserialize, Serialize};

use super::cjk;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerType {
    /// A person or an organisation ("who ...").
    Person,
    /// A company, team, band or other named organisation.
    Organisation,
    /// A country, city, venue or other place.
    Place,
    /// A calendar date (day, month or both, with or without a year).
    Date,
    /// A year.
    Year,
    /// An amount of money.
    Money,
    /// A percentage.
    Percent,
    /// A number with or without a unit ("how many", "how long").
    Quantity,
    /// A version or release number.
    Version,
    /// Some proper name (a film, a product, a title...).
    Name,
    /// Yes or no.
    YesNo,
    /// A definition or an explanation: a sentence, not a span.
    Explanation,
}

impl AnswerType {
    pub fn as_str(self) -> &'static str {
        match self {
            AnswerType::Person => "person",
            AnswerType::Organisation => "organisation",
            AnswerType::Place => "place",
            AnswerType::Date => "date",
            AnswerType::Year => "year",
            AnswerType::Money => "money",
            AnswerType::Percent => "percent",
            AnswerType::Quantity => "quantity",
            AnswerType::Version => "version",
            AnswerType::Name => "name",
            AnswerType::YesNo => "yes_no",
            AnswerType::Explanation => "explanation",
        }
    }

    /// Whether the answer is a span of a sentence (a value that can be
    /// voted on), not the sentence itself.
    pub fn is_span(self) -> bool {
        !matches!(self, AnswerType::YesNo | AnswerType::Explanation)
    }

    /// Whether the answer is a date or a year.
    pub fn is_date(self) -> bool {
        matches!(self, AnswerType::Date | AnswerType::Year)
    }

    /// Whether the answer is a proper name.
    pub fn is_name(self) -> bool {
        matches!(
            self,
            AnswerType::Person | AnswerType::Organisation | AnswerType::Place | AnswerType::Name
        )
    }
}

/// Class nouns and the answer type they ask for ("which country" asks for
/// a place). Singular forms; a trailing "s" is dropped before lookup.
const CLASS_NOUNS: &[(&[&str], AnswerType)] = &[
    (
        &[
            "country",
            "nation",
            "city",
            "town",
            "state",
            "province",
            "region",
            "continent",
            "capital",
            "location",
            "place",
            "venue",
            "stadium",
            "arena",
            "where",
            "headquarter",
            "address",
            "island",
        ],
        AnswerType::Place,
    ),
    (&["year"], AnswerType::Year),
    (
        &["date", "day", "month", "time", "deadline", "when"],
        AnswerType::Date,
    ),
    (
        &[
            "revenue",
            "price",
            "cost",
            "value",
            "worth",
            "salary",
            "income",
            "profit",
            "loss",
            "budget",
            "funding",
            "valuation",
            "fee",
            "charge",
            "toll",
            "tariff",
            "levy",
            "surcharge",
            "sale",
            "earning",
            "amount",
            "gross",
            "fine",
            "prize",
            "wage",
            "spending",
            "debt",
            "capitalization",
            "capitalisation",
        ],
        AnswerType::Money,
    ),
    (
        &["percentage", "percent", "share", "rate", "growth", "margin"],
        AnswerType::Percent,
    ),
    (
        &[
            "number",
            "count",
            "population",
            "total",
            "size",
            "length",
            "height",
            "weight",
            "distance",
            "speed",
            "duration",
            "age",
            "score",
            "attendance",
            "capacity",
        ],
        AnswerType::Quantity,
    ),
    (&["version", "release"], AnswerType::Version),
    (
        &[
            "company",
            "team",
            "firm",
            "brand",
            "organization",
            "organisation",
            "club",
            "band",
            "group",
            "university",
            "school",
            "college",
            "network",
            "studio",
            "publisher",
            "manufacturer",
            "airline",
            "party",
            "agency",
            "bank",
            "carrier",
            "startup",
            "label",
            "league",
        ],
        AnswerType::Organisation,
    ),
    (
        &[
            "person",
            "player",
            "winner",
            "champion",
            "ceo",
            "president",
            "founder",
            "director",
            "author",
            "actor",
            "actress",
            "singer",
            "artist",
            "leader",
            "chairman",
            "chair",
            "coach",
            "manager",
            "minister",
            "captain",
            "host",
            "writer",
            "inventor",
            "owner",
            "candidate",
            "driver",
            "mvp",
            "recipient",
            "star",
            "successor",
            "head",
        ],
        AnswerType::Person,
    ),
    (
        &[
            "name",
            "title",
            "film",
            "movie",
            "song",
            "book",
            "album",
            "game",
            "show",
            "series",
            "novel",
            "product",
            "model",
            "phone",
            "car",
            "award",
            "brand",
            "character",
            "language",
            "platform",
            "app",
            "software",
            "device",
            "chip",
            "event",
            "sport",
            "console",
        ],
        AnswerType::Name,
    ),
];

fn class_of(word: &str) -> Option<AnswerType> {
    let singular = word
        .strip_suffix("ies")
        .map(|s| format!("{s}y"))
        .or_else(|| {
            word.strip_suffix('s')
                .filter(|s| s.len() > 2 && !s.ends_with('s'))
                .map(str::to_string)
        });
    CLASS_NOUNS
        .iter()
        .find(|(nouns, _)| {
            nouns.contains(&word) || singular.as_deref().is_some_and(|s| nouns.contains(&s))
        })
        .map(|(_, t)| *t)
}

/// Words that make "value" a setting's value: "the default value of X",
/// "the maximum value".
pub(super) fn is_setting_qualifier(w: &str) -> bool {
    matches!(
        w,
        "default" | "maximum" | "minimum" | "max" | "min" | "initial" | "largest" | "smallest"
    )
}

/// Words skipped between a question word and its class noun ("what was
/// *the* revenue", "which *of the* teams").
fn is_filler(w: &str) -> bool {
    matches!(
        w,
        "is" | "was"
            | "are"
            | "were"
            | "the"
            | "a"
            | "an"
            | "of"
            | "be"
            | "been"
            | "kind"
            | "type"
            | "exact"
            | "official"
            | "first"
            | "last"
            | "new"
            | "current"
            | "total"
            | "main"
            | "its"
            | "their"
            | "his"
            | "her"
    )
}

fn words(q: &str) -> Vec<String> {
    q.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_end_matches("'s").to_lowercase())
        .collect()
}

/// Whether a text is phrased as a question ("Who leads Acme", "When was
/// it released"), not a topic ("rates", "licence status"): a topic has no
/// expected value, whatever its nouns.
pub fn is_phrased_as_question(text: &str) -> bool {
    cjk::has_cjk(text)
        || words(text).iter().any(|t| {
            matches!(
                t.as_str(),
                "who" | "whom" | "whose" | "when" | "where" | "which" | "what" | "how" | "why"
            )
        })
}

/// The verbs that end a "what ..." or "which ..." phrase ("Which journal
/// modes *does* SQLite support"), lowercase.
pub const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should",
    "have", "has", "had", "may", "might", "must",
];

/// Whether a question asks for several things of one kind: its "what" or
/// "which" phrase ends in a plural noun ("What kinds of indexes ...",
/// "Which journal modes does ...", "which cities have adopted it"), not a
/// singular one ("Which country won ...").
pub fn asks_for_list(question: &str) -> bool {
    let w = words(question);
    let Some(i) = w
        .iter()
        .position(|t| matches!(t.as_str(), "what" | "which"))
    else {
        return false;
    };
    // The phrase runs to the verb that follows it; without one close by
    // ("Which country won the most medals"), it is its first word.
    let phrase: Vec<&str> = w[i + 1..].iter().take(4).map(String::as_str).collect();
    let head = match phrase.iter().position(|t| AUXILIARIES.contains(t)) {
        // "What is the default ...": the verb comes first, no phrase.
        Some(0) => None,
        Some(k) => Some(phrase[k - 1]),
        None => phrase.first().copied(),
    };
    head.is_some_and(is_plural)
}

/// Whether an English noun reads as a plural: "-s" but not "-ss", "-us",
/// "-is" ("class", "status", "analysis"), or an irregular plural.
fn is_plural(w: &str) -> bool {
    matches!(
        w,
        "people" | "children" | "men" | "women" | "criteria" | "data"
    ) || w.len() > 3
        && w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("us")
        && !w.ends_with("is")
}

/// What kind of value answers `question` (a question or a sub-question).
pub fn expected(question: &str) -> AnswerType {
    if cjk::has_cjk(question) {
        return expected_cjk(question);
    }
    let w = words(question);
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    // The question word: the first one of the question, or later ("In
    // which year ...", "Tell me who ...").
    let wh = w.iter().position(|t| {
        matches!(
            t.as_str(),
            "who" | "whom" | "whose" | "when" | "where" | "which" | "what" | "how" | "why"
        )
    });
    let Some(i) = wh else {
        // No question word: "Super Bowl 2021 location", "Is X licensed?".
        if matches!(
            at(0),
            "is" | "are"
                | "was"
                | "were"
                | "does"
                | "do"
                | "did"
                | "can"
                | "could"
                | "has"
                | "have"
                | "will"
                | "should"
        ) {
            return AnswerType::YesNo;
        }
        return w
            .iter()
            .rev()
            .find_map(|t| class_of(t))
            .unwrap_or(AnswerType::Explanation);
    };
    match at(i) {
        "who" | "whom" => AnswerType::Person,
        "whose" => AnswerType::Name,
        "when" => when_type(&w, i),
        "where" => AnswerType::Place,
        "why" => AnswerType::Explanation,
        "how" => how_type(&w, i),
        // "What is a congestion charge?": a definition, whatever the noun.
        "what"
            if matches!(at(i + 1), "is" | "are" | "was" | "'s")
                && matches!(at(i + 2), "a" | "an") =>
        {
            AnswerType::Explanation
        }
        // which / what: the class noun after it decides.
        _ => {
            let mut j = i + 1;
            while j < w.len() && is_filler(at(j)) {
                j += 1;
            }
            // "what is X" with no class noun: a definition; look a few
            // words on for "what was Tesla's revenue".
            // The first class noun, or the next word when it is a class
            // noun too: "the company's revenue", "the release date".
            // "What did X say": after an auxiliary comes the subject, not
            // the class of the answer.
            let mut head = None;
            for k in j..(j + 4).min(w.len()) {
                if matches!(
                    at(k),
                    "did"
                        | "does"
                        | "do"
                        | "has"
                        | "have"
                        | "had"
                        | "will"
                        | "can"
                        | "could"
                        | "would"
                        | "should"
                        | "might"
                        | "must"
                        | "may"
                        | "shall"
                ) || at(k).ends_with("ed") && class_of(at(k)).is_none()
                {
                    // "What changed in version 3": a verb, not a class.
                    break;
                }
                // "Which journal modes": a plural of no class is a list,
                // answered in sentences.
                let word = at(k);
                if class_of(word).is_none()
                    && word.len() > 3
                    && word.ends_with('s')
                    && !word.ends_with("ss")
                {
                    head = Some(AnswerType::Explanation);
                    break;
                }
                if let Some(t) = class_of(at(k)) {
                    let noun = if class_of(at(k + 1)).is_some() {
                        at(k + 1)
                    } else {
                        at(k)
                    };
                    let t = class_of(noun).unwrap_or(t);
                    // "The default value of a setting" is a setting's
                    // value (a size, a count), not money.
                    let setting = noun == "value" && k > 0 && is_setting_qualifier(at(k - 1));
                    let t = if setting { AnswerType::Quantity } else { t };
                    // "Which cities have adopted it": a list, answered in
                    // sentences, unless the plural is of amounts.
                    let plural = class_of(noun).is_some()
                        && !CLASS_NOUNS.iter().any(|(n, _)| n.contains(&noun));
                    head = Some(if plural && t.is_name() {
                        AnswerType::Explanation
                    } else {
                        t
                    });
                    break;
                }
            }
            if let Some(t) = head {
                return t;
            }
            // "Which is the default": no class, answered in sentences.
            AnswerType::Explanation
        }
    }
}

/// Verbs of a moment: "when does X release" asks a date.
const MOMENT_VERBS: &[&str] = &[
    "release",
    "launch",
    "start",
    "begin",
    "end",
    "finish",
    "open",
    "close",
    "expire",
    "premiere",
    "air",
    "arrive",
    "ship",
    "debut",
    "happen",
    "occur",
    "take",
    "come",
    "return",
    "retire",
    "die",
    "leave",
    "kick",
    "go",
    "become",
    "celebrate",
];

/// "When was X released", "when will it ship", "when does X release" ask
/// a date; "when does SQLite checkpoint", "when should I use X" ask a
/// condition, answered in sentences. A year in the question keeps a date.
fn when_type(w: &[String], i: usize) -> AnswerType {
    let aux = w.get(i + 1).map(String::as_str).unwrap_or("");
    let generic = matches!(
        aux,
        "does" | "do" | "should" | "can" | "could" | "would" | "must" | "may" | "might"
    );
    let names_year = w
        .iter()
        .any(|t| t.len() == 4 && t.chars().all(|c| c.is_ascii_digit()));
    let moment = w[i + 1..].iter().any(|t| {
        MOMENT_VERBS
            .iter()
            .any(|v| t.strip_suffix('s').unwrap_or(t) == *v)
    });
    if generic && !names_year && !moment {
        AnswerType::Explanation
    } else {
        AnswerType::Date
    }
}

/// "How many", "how much ... cost", "how long": the word after "how".
fn how_type(w: &[String], i: usize) -> AnswerType {
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    match at(i + 1) {
        "many" => AnswerType::Quantity,
        "much" => {
            let rest = &w[i + 2..];
            if rest.iter().any(|t| {
                matches!(
                    t.as_str(),
                    "cost"
                        | "costs"
                        | "pay"
                        | "paid"
                        | "worth"
                        | "spend"
                        | "spent"
                        | "charge"
                        | "price"
                        | "raise"
                        | "raised"
                        | "earn"
                        | "earned"
                        | "money"
                        | "sell"
                        | "sold"
                        | "invest"
                        | "invested"
                        | "fund"
                        | "funding"
                )
            }) {
                AnswerType::Money
            } else {
                AnswerType::Quantity
            }
        }
        "long" | "old" | "big" | "large" | "tall" | "far" | "fast" | "high" | "heavy" | "often"
        | "deep" | "wide" => AnswerType::Quantity,
        _ => AnswerType::Explanation,
    }
}

/// The answer type of a Chinese or Japanese question, from its question
/// words and class nouns.
fn expected_cjk(q: &str) -> AnswerType {
    let has = |words: &[&str]| words.iter().any(|w| q.contains(w));
    if has(&["哪一年", "哪年", "年份", "何年", "几年"]) {
        AnswerType::Year
    } else if has(&[
        "时间",
        "日期",
        "何时",
        "什么时候",
        "哪天",
        "哪一天",
        "几月",
        "几号",
        "いつ",
    ]) {
        AnswerType::Date
    } else if has(&["百分", "比例", "增长率", "增幅", "涨幅", "降幅", "占比"]) {
        AnswerType::Percent
    } else if has(&[
        "多少钱",
        "价格",
        "金额",
        "收入",
        "营收",
        "利润",
        "票房",
        "市值",
        "估值",
        "售价",
        "费用",
        "成本",
    ]) {
        AnswerType::Money
    } else if has(&["多少", "几个", "几名", "几位", "数量", "人数"]) {
        AnswerType::Quantity
    } else if has(&[
        "哪个国家",
        "哪国",
        "哪里",
        "哪儿",
        "在哪",
        "什么地方",
        "地点",
        "城市",
        "どこ",
    ]) {
        AnswerType::Place
    } else if has(&["哪家公司", "哪个公司", "哪家", "哪个队", "哪支"]) {
        AnswerType::Organisation
    } else if has(&["谁", "哪位", "什么人", "冠军", "获得者", "得主", "誰"]) {
        AnswerType::Person
    } else if has(&["哪", "什么", "名字", "名称"]) {
        AnswerType::Name
    } else {
        AnswerType::Explanation
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_plural_after_what_or_which_asks_for_a_list() {
        for q in [
            "What kinds of indexes can I create in PostgreSQL?",
            "Which journal modes does SQLite support?",
            "which cities have adopted it",
            "Which transaction isolation levels are there, and which is the default?",
            "What storage strategies can a column use?",
        ] {
            assert!(super::asks_for_list(q), "{q}");
        }
        for q in [
            "Which country won the most medals at the 2018 Winter Olympics?",
            "What is the default value of shared_buffers?",
            "What affinity does a column declared as DATETIME get?",
            "What was the status of the licence?",
            "How does write-ahead logging work?",
        ] {
            assert!(!super::asks_for_list(q), "{q}");
        }
    }

    use super::AnswerType::*;
    use super::*;

    #[test]
    fn question_words_and_class_nouns_give_the_type() {
        for (q, t) in [
            ("Who leads Acme Widgets?", Person),
            ("Who acquired the startup?", Person),
            ("When was the charge brought into force?", Date),
            ("When does the new tablet release?", Date),
            ("When does the 2031 season take place?", Date),
            ("When does the cache flush dirty pages?", Explanation),
            ("When should I prefer a hash index?", Explanation),
            ("In which year did the bridge open?", Year),
            ("What was the company's revenue in Q1?", Money),
            ("How much did the deal cost?", Money),
            ("How many employees does it have?", Quantity),
            ("Which country hosted the games?", Place),
            ("Where is the festival held?", Place),
            ("Which team won the final?", Organisation),
            ("What is the name of the new model?", Name),
            ("Which film won best picture?", Name),
            ("What is a congestion charge?", Explanation),
            ("What is the daily charge today?", Money),
            ("What is the value of the deal?", Money),
            ("What is the default value of work_mem?", Quantity),
            ("What is the maximum value of a port?", Quantity),
            ("How does the scorer work?", Explanation),
            ("Is the licence valid?", YesNo),
            ("Final venue location", Place),
            ("What percentage of votes did she get?", Percent),
            ("Which version added the flag?", Version),
            ("What changed in version 3 of the standard?", Explanation),
            ("What must publishers change?", Explanation),
            ("Which cities have adopted it?", Explanation),
            ("Which city hosted it?", Place),
            ("Which journal modes does it support?", Explanation),
            ("Which is the default?", Explanation),
        ] {
            assert_eq!(expected(q), t, "{q}");
        }
    }

    #[test]
    fn chinese_questions_have_types_too() {
        assert_eq!(expected("会议召开的时间是什么？"), Date);
        assert_eq!(expected("谁获得了冠军？"), Person);
        assert_eq!(expected("公司第一季度的营收是多少？"), Money);
        assert_eq!(expected("这座桥在哪里？"), Place);
    }
}
