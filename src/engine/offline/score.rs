//! Sentence scoring: which verbatim sentences of the pages read state the
//! aspect's value, weighed by term rarity, source authority and freshness.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::lexicon::{
    STOP, Terms, ValueKind, has_value, names_only_prereleases, spelling_key, stemmer, terms_for,
    words,
};
use super::pages::PageRead;
use super::{MAX_FINDINGS, PER_PAGE};
use crate::answer::acronym::Abbreviations;
use crate::answer::release;
use crate::evidence::sentences::section_headings;
use crate::evidence::structure::CELL_SEPARATOR;
use crate::evidence::{quotes, sentences};

#[derive(Clone)]
pub(super) struct Candidate {
    pub sentence: String,
    pub url: String,
    pub as_of: Option<String>,
    pub score: f64,
}

impl Candidate {
    fn new(sentence: &str, url: &str, as_of: Option<String>, score: f64) -> Self {
        Candidate {
            sentence: sentence.to_string(),
            url: url.to_string(),
            as_of,
            score,
        }
    }
}

/// How much a kind of source is trusted for facts about an entity.
fn authority(source_type: &str) -> f64 {
    match source_type {
        "regulator" => 1.4,
        "official" => 1.2,
        "news" => 1.1,
        "press_release" | "review" => 1.0,
        "other" => 0.9,
        "forum" => 0.8,
        "blog" => 0.75,
        _ => 0.9,
    }
}

/// 0.5^(age / two years): newer pages state the current position more often.
fn freshness(as_of: Option<&str>, today: &str) -> f64 {
    let parse = |d: &str| chrono::NaiveDate::parse_from_str(d.get(..10)?, "%Y-%m-%d").ok();
    match (as_of.and_then(parse), parse(today)) {
        (Some(a), Some(t)) => 0.5f64.powf(((t - a).num_days().max(0) as f64) / 730.0),
        _ => 0.5,
    }
}

/// Words that, right after a name, say who is behind it (its council, its
/// foundation), not that it is another thing; legal forms do the same.
const OWNER_WORDS: &[&str] = &[
    "city",
    "council",
    "county",
    "borough",
    "district",
    "region",
    "state",
    "government",
    "ministry",
    "department",
    "authority",
    "foundation",
    "project",
    "team",
    "community",
    "university",
    "institute",
    // Legal forms count too (`LEGAL_FORMS`), and these looser ones:
    "pvt",
    "company",
    "co",
    "group",
    // Sections of the subject's own site: "Pelican Support", "Pelican Users".
    "support",
    "help",
    "users",
    "docs",
    "documentation",
    "blog",
    "newsroom",
];

/// Words that end a company's legal name.
const LEGAL_FORMS: &[&str] = &[
    "private",
    "limited",
    "ltd",
    "inc",
    "llc",
    "llp",
    "plc",
    "gmbh",
    "corp",
    "corporation",
    "sa",
    "ag",
    "bv",
];

/// Look-alikes that carry a name of the question: the name followed at
/// once by a capitalised word the question never uses ("QuillStore Drive"
/// in a question about Quillstore, "Pelican Notes" in one about the Pelican
/// browser). Such a sentence is about another thing of a similar name, so
/// it states no value of the subject. Owner words ("Lanholm City Council",
/// "Halden Freight Private Limited") and numbers ("Pelican 42") are the
/// subject's own.
struct LookAlike {
    names: BTreeSet<String>,
    question_stems: BTreeSet<String>,
}

impl LookAlike {
    fn new(question: &str) -> Self {
        let st = stemmer();
        // Capitalised words of the question after its first word: its names.
        let names = question
            .split_whitespace()
            .skip(1)
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| w.starts_with(|c: char| c.is_uppercase()) && w.len() > 1)
            .map(str::to_lowercase)
            .collect();
        let question_stems = words(question).map(|w| st.stem(&w).into_owned()).collect();
        Self {
            names,
            question_stems,
        }
    }

    /// Whether `name next` names another thing than the question's.
    fn pair_is_lookalike(&self, name: &str, next: &str) -> bool {
        let st = stemmer();
        let next = next.trim_end_matches(|c: char| !c.is_alphanumeric());
        let lower = next.to_lowercase();
        name.chars().all(char::is_alphanumeric)
            && self.names.contains(&name.to_lowercase())
            && next.starts_with(|c: char| c.is_uppercase())
            && next.chars().all(char::is_alphabetic)
            && !self.names.contains(&lower)
            && !self.question_stems.contains(st.stem(&lower).as_ref())
            && !OWNER_WORDS.contains(&lower.as_str())
            && !LEGAL_FORMS.contains(&lower.as_str())
            // "Quokka Release 4.12", "Quokka Version 3": the subject's own releases.
            && !["release", "releases", "version", "versions"].contains(&lower.as_str())
            && !crate::document::is_calendar_word(&lower)
    }

    fn named_in(&self, sentence: &str) -> bool {
        if self.names.is_empty() {
            return false;
        }
        let tokens: Vec<&str> = sentence.split(' ').collect();
        tokens
            .windows(2)
            .any(|pair| self.pair_is_lookalike(pair[0], pair[1]))
    }

    /// Whether a page is about a look-alike: its title names one, and in its
    /// text the look-alike's name ("Pelican" in "Pelican Notes") stands in
    /// the look-alike more often than alone. A news site named after a city
    /// ("Lanholm Echo") writes about the city under its plain name.
    fn page_is_lookalike(&self, title: &str, text: &str) -> bool {
        let tokens: Vec<&str> = title.split_whitespace().collect();
        // "PadmaPay Technologies Private Limited": a name, a word and a
        // legal form is a company's full name (the subject's own, as a
        // rule); the identity gate judges companies.
        let legal = |i: usize| {
            tokens.get(i + 2).is_some_and(|w| {
                let w = w
                    .trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase();
                LEGAL_FORMS.contains(&w.as_str())
            })
        };
        let lookalike_names: BTreeSet<String> = tokens
            .windows(2)
            .enumerate()
            .filter(|(i, p)| self.pair_is_lookalike(p[0], p[1]) && !legal(*i))
            .map(|(_, p)| p[0].to_lowercase())
            .collect();
        if lookalike_names.is_empty() {
            return false;
        }
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let (mut other, mut plain) = (0usize, 0usize);
        for (i, t) in tokens.iter().enumerate() {
            let bare = t.trim_matches(|c: char| !c.is_alphanumeric());
            if !lookalike_names.contains(&bare.to_lowercase()) {
                continue;
            }
            match tokens.get(i + 1) {
                Some(next) if *t == bare && self.pair_is_lookalike(bare, next) => other += 1,
                _ => plain += 1,
            }
        }
        other > plain
    }
}

/// Words of an aspect asking for the value in force now.
const CURRENT_ASKS: &[&str] = &[
    "today",
    "current",
    "currently",
    "now",
    "present",
    "presently",
];

/// Words of a sentence saying what holds now.
const CURRENT_MARKERS: &[&str] = &[
    " currently ",
    " now ",
    " today ",
    " at present ",
    " presently ",
    " as of today ",
];

pub(super) fn asks_current(aspect: &str) -> bool {
    words(aspect).any(|w| CURRENT_ASKS.contains(&w.as_str()))
}

/// Words of an aspect asking for advice: which to choose, what to use.
const ADVICE_ASKS: &[&str] = &[
    "choose",
    "choice",
    "recommend",
    "recommended",
    "prefer",
    "should",
];

/// Whether an aspect asks for advice ("Which to choose: A or B", "which
/// should I use"): a recommendation answers it, and a recommendation
/// speaks in "should" and "if".
fn asks_advice(aspect: &str) -> bool {
    words(aspect).any(|w| ADVICE_ASKS.contains(&w.as_str()))
}

/// Whether a piece of page text has the shape of a sentence that can state
/// a finding: not a Markdown heading, not a breadcrumb or a title bar
/// ("Help › Reading › Calm Read mode", "Title | Site"), and with at least
/// `lowercase` lowercase words (a verb among them, as a rule).
fn shaped_with(s: &str, lowercase: usize) -> bool {
    let t = s.trim_start();
    if t.starts_with('#') {
        return false;
    }
    if ['›', '»', '|'].iter().any(|c| t.contains(*c)) || t.contains(" > ") {
        return false;
    }
    t.split_whitespace()
        .filter(|w| w.chars().next().is_some_and(char::is_lowercase))
        .count()
        >= lowercase
}

/// Whether a unit of page text can state a finding: a sentence of 5 to 70
/// words of sentence shape (for a sentence carrying a block, the sentence
/// itself), or a table row of 2 to 70 words. Headings and breadcrumbs
/// ("# Decision: ...", "Help › Reading") name a topic; they state no finding.
fn unit_shaped(u: &sentences::Unit<'_>) -> bool {
    if !u.text.chars().any(char::is_alphabetic) {
        return false;
    }
    if u.is_row() {
        return (2..=70).contains(&u.text.split_whitespace().count());
    }
    // A short sentence carrying a block ("The differences are:",
    // "Advantages include:") states what the block says.
    let (least, lowercase) = if u.carries_block() { (2, 1) } else { (5, 2) };
    (least..=70).contains(&u.head.split_whitespace().count()) && shaped_with(u.head, lowercase)
}

/// The term keys a table's header row names that its row does not.
fn header_terms(
    header: &str,
    stems: &BTreeSet<String>,
    in_row: &BTreeSet<String>,
) -> BTreeSet<String> {
    let st = stemmer();
    let header: BTreeSet<String> = words(header).map(|w| st.stem(&w).into_owned()).collect();
    stems
        .iter()
        .filter(|t| header.contains(*t))
        .map(|t| spelling_key(t))
        .filter(|k| !in_row.contains(k))
        .collect()
}

/// How much each term of an aspect says: by its sentence frequency over
/// everything read, as a term in every sentence ("merchant" on a payments
/// site) says little about the aspect. Both spellings of a term are one
/// term ([`spelling_key`]).
struct Weights {
    df: HashMap<String, usize>,
    n_sentences: usize,
}

impl Weights {
    fn of(
        terms: &Terms,
        order: &[String],
        pages: &BTreeMap<String, PageRead>,
        abbreviations: &Abbreviations,
    ) -> Self {
        let st = stemmer();
        let mut n_sentences = 0usize;
        let mut df: HashMap<String, usize> = HashMap::new();
        for url in order {
            for s in sentences::split(&pages[url].text) {
                n_sentences += 1;
                let s = abbreviations.expand(s);
                let s = s.as_ref();
                let stems: BTreeSet<String> = words(s).map(|w| st.stem(&w).into_owned()).collect();
                let lower = s.to_lowercase();
                let keys = term_keys(terms, &stems);
                for k in keys {
                    *df.entry(k).or_default() += 1;
                }
                for ph in terms
                    .phrases
                    .iter()
                    .filter(|ph| lower.contains(ph.as_str()))
                {
                    *df.entry(ph.clone()).or_default() += 1;
                }
            }
        }
        Weights { df, n_sentences }
    }

    fn weight(&self, term: &str) -> f64 {
        let d = self.df.get(term).copied().unwrap_or(0) as f64;
        (1.0 + ((self.n_sentences as f64 + 1.0) / (d + 1.0)).ln() / 2.0).clamp(0.3, 3.0)
    }
}

/// The weight of the release a question asks about ("3.35.0"), found in a
/// page's title: the most a term weighs, as no term singles out what is
/// asked better.
const RELEASE_WEIGHT: f64 = 3.0;

/// Words asking what a release brought, not about one thing in it.
const RELEASE_WORDS: &[&str] = &[
    "new", "change", "changed", "changes", "happened", "release", "released", "version", "notes",
    "features",
];

/// Whether an aspect asks what a release brought as a whole ("What's new
/// in Quokka 4.12?", "What did Quokka 4.12 change?"): it has no word but
/// the subject's, the release's and [`RELEASE_WORDS`].
fn asks_whole_release(aspect: &str, entity: &str) -> bool {
    let subject: Vec<String> = words(entity).collect();
    !words(aspect).any(|w| {
        w.len() > 2
            && !STOP.contains(&w.as_str())
            && !w.chars().all(|c| c.is_ascii_digit())
            && !subject.contains(&w)
            && !RELEASE_WORDS.contains(&w.as_str())
    })
}

/// What tells two things apart in a sentence: a contrasting conjunction,
/// a comparison, or a relation one bears to the other ("FTS4 is an
/// enhancement to FTS3").
const CONTRASTING: &[&str] = &[
    "while",
    "whereas",
    "unlike",
    "but",
    "however",
    "than",
    "instead",
    "rather",
    "compared",
    "differs",
    "enhancement",
    "improvement",
    "successor",
    "superset",
    "subset",
    "replacement",
    "alternative",
];

/// For the aspect of a comparison that asks how its items differ ("Differences
/// between json and jsonb"): the items. A sentence that names two of them
/// and sets them against each other ("The json type stores an exact copy
/// ...; while jsonb data is stored in a decomposed binary format") is what
/// answers it, not one about either alone.
struct Contrast {
    items: Vec<String>,
    /// The aspect asks which item to choose ([`asks_advice`]).
    advice: bool,
}

/// Words that give advice: a sentence recommending an item answers which
/// to choose ("For newer applications, B is recommended").
const ADVICE_GIVEN: &[&str] = &[
    "recommended",
    "recommend",
    "recommends",
    "recommendation",
    "preferred",
    "advised",
    "advisable",
    "should use",
    "should be used",
    "should be preferred",
];

impl Contrast {
    fn of(aspect: &str, question: &str) -> Self {
        let items: Vec<String> = crate::question::comparison_items(question)
            .into_iter()
            .filter(|i| contains_name(aspect, i))
            .collect();
        Contrast {
            items: if items.len() >= 2 { items } else { vec![] },
            advice: asks_advice(aspect),
        }
    }

    /// The terms a sentence about the aspect holds. How two items differ is
    /// asked in the planner's words ("Differences between"): what a
    /// sentence must name is the items.
    fn terms(&self, aspect: &str, thesaurus: bool) -> Terms {
        if self.asked() {
            terms_for(&self.items.join(" "), thesaurus)
        } else {
            terms_for(aspect, thesaurus)
        }
    }

    /// Whether the aspect asks how the items differ.
    fn asked(&self) -> bool {
        !self.items.is_empty()
    }

    /// A sentence's weight: half as much again when it names two items or
    /// more, three times when it also sets them against each other; asked
    /// which to choose, four times when it recommends one.
    fn weigh(&self, sentence: &str) -> f64 {
        if !self.asked() {
            return 1.0;
        }
        let named = self
            .items
            .iter()
            .filter(|i| contains_name(sentence, i))
            .count();
        if self.advice && named >= 1 {
            let lower = format!(" {} ", sentence.to_lowercase());
            if ADVICE_GIVEN
                .iter()
                .any(|a| lower.contains(&format!(" {a}")))
            {
                return 4.0;
            }
        }
        if named < 2 {
            return 1.0;
        }
        let contrasts = sentence
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| CONTRASTING.contains(&w.to_lowercase().as_str()));
        if contrasts { 3.0 } else { 1.5 }
    }
}

/// Whether `text` names `name` in full, as whole words of any case (the
/// identity gate's test of a name).
fn contains_name(text: &str, name: &str) -> bool {
    crate::evidence::identity::name_strength(name, text) >= 1.0
}

/// Whether an aspect is a question whose answer is sentences, not a value
/// (how, why, what is, which ones; yes or no: "Is varchar faster than
/// text?" is answered by the sentences that say whether it is).
pub(super) fn explains(aspect: &str) -> bool {
    let expected = crate::answer::expected(aspect);
    (crate::answer::is_phrased_as_question(aspect) && !expected.is_span())
        || expected == crate::answer::AnswerType::YesNo
}

/// The most sentences an explanation goes on with past its best one.
const CONTINUED: usize = 2;

/// Words that open a sentence going on with the one before it: it refers
/// back ("This", "Such datums", "It") or draws from it ("Therefore").
const REFERRING: &[&str] = &[
    "this",
    "these",
    "that",
    "those",
    "such",
    "it",
    "its",
    "they",
    "their",
    "thus",
    "therefore",
    "hence",
    "consequently",
    "instead",
    "otherwise",
];

/// The sentences after a page's best one for an explanation that refer
/// back to it ("To overcome this limitation, ...", "This happens
/// transparently ..."): its next steps, as findings ranked just below it.
fn going_on(
    text: &str,
    units: &[sentences::Unit<'_>],
    at: usize,
    best: &Candidate,
) -> Vec<Candidate> {
    let next = continuation(text, units, at);
    beside(best, next, |k| best.score * (0.99 - 0.01 * k as f64))
}

/// Sentences of the page of `best` as findings like it, the `k`th scored
/// `score(k)`.
fn beside(best: &Candidate, sentences: Vec<&str>, score: impl Fn(usize) -> f64) -> Vec<Candidate> {
    sentences
        .into_iter()
        .enumerate()
        .map(|(k, s)| Candidate {
            sentence: s.to_string(),
            score: score(k),
            ..best.clone()
        })
        .collect()
}

/// The sentences before a page's best one for an explanation that it
/// draws from or refers back to ("Therefore, it is not possible to store
/// very large field values directly." needs the sentence before it), in
/// order, as findings as good as it (ranked just before it).
fn led_in(
    text: &str,
    units: &[sentences::Unit<'_>],
    at: usize,
    best: &Candidate,
) -> Vec<Candidate> {
    let mut out: Vec<&str> = Vec::new();
    let mut i = at;
    while i > 0 && out.len() < CONTINUED {
        let (before, this) = (&units[i - 1], &units[i]);
        if !same_line(text, before, this) || before.is_row() || !refers_back(this.text) {
            break;
        }
        out.push(before.text);
        i -= 1;
    }
    out.reverse();
    beside(best, out, |_| best.score)
}

/// Whether unit `next` follows unit `before` of `text` on the same line
/// (no line break between them: one paragraph, one list item).
fn same_line(text: &str, before: &sentences::Unit<'_>, next: &sentences::Unit<'_>) -> bool {
    text.get(
        sentences::offset(text, before.text) + before.text.len()
            ..sentences::offset(text, next.text),
    )
    .is_some_and(|gap| !gap.contains('\n'))
}

/// Whether a sentence refers back to the one before it: it opens with a
/// word that does ("This", "Therefore"), or speaks of "such" a thing ("there
/// is no such advantage"; "such as" introduces examples, and refers to
/// nothing).
fn refers_back(sentence: &str) -> bool {
    let words: Vec<String> = sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    opens_referring(sentence) || words.windows(2).any(|w| w[0] == "such" && w[1] != "as")
}

/// Whether a sentence opens with a word referring back ("This", "Therefore").
fn opens_referring(sentence: &str) -> bool {
    sentence
        .split_whitespace()
        .next()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .is_some_and(|w| REFERRING.contains(&w.as_str()))
}

/// The sentences after unit `at` of `text` that go on with it, in the same
/// paragraph: each opens with a referring word or refers back within its
/// first words ("To overcome this limitation, ...").
fn continuation<'a>(text: &str, units: &[sentences::Unit<'a>], at: usize) -> Vec<&'a str> {
    let mut out = Vec::new();
    for pair in units.get(at..).unwrap_or_default().windows(2) {
        let (before, next) = (&pair[0], &pair[1]);
        let opening: Vec<String> = next
            .text
            .split_whitespace()
            .take(4)
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase()
            })
            .collect();
        // It refers back early on ("To overcome this limitation"), or
        // adds to what was just said ("jsonb also supports indexing").
        let refers = opens_referring(next.text)
            || opening
                .iter()
                .any(|w| matches!(w.as_str(), "this" | "these" | "such" | "also"));
        if !same_line(text, before, next) || next.is_row() || !refers || out.len() == CONTINUED {
            break;
        }
        out.push(next.text);
    }
    out
}

/// What judging a sentence's score needs besides the sentence.
struct Judging<'a> {
    terms: &'a Terms,
    entity: &'a str,
    asks_current: bool,
    /// The aspect asks for several things of one kind ([`crate::answer::asks_for_list`]).
    asks_list: bool,
    /// The aspect asks for advice ([`asks_advice`]).
    asks_advice: bool,
    today: Option<chrono::NaiveDate>,
}

/// The aspect's terms a sentence's stems hold, each once whatever its
/// spelling ([`spelling_key`]).
fn term_keys(terms: &Terms, stems: &BTreeSet<String>) -> BTreeSet<String> {
    terms
        .stems
        .iter()
        .filter(|t| stems.contains(*t))
        .map(|t| spelling_key(t))
        .collect()
}

/// Items of a list a sentence runs through are short: at most this many words.
const LIST_ITEM_WORDS: usize = 4;

/// Whether a unit names several things: a carried list or table, or a
/// sentence running through three or more short items ("B-tree, Hash,
/// GiST and BRIN"; "Port Alder, Velmont, Haverlund and Castellan Bay"),
/// not one whose commas part clauses.
fn enumerates(u: &sentences::Unit<'_>) -> bool {
    if u.carries_block() {
        return true;
    }
    let segments: Vec<&str> = u.head.split(", ").collect();
    let Some((last, rest)) = segments.split_last() else {
        return false;
    };
    let interior = rest.get(1..).unwrap_or_default();
    let last = format!(" {}", last.to_lowercase());
    !interior.is_empty()
        && interior
            .iter()
            .all(|i| i.split_whitespace().count() <= LIST_ITEM_WORDS)
        && (last.contains(" and ") || last.contains(" or "))
}

/// A unit's score from its `base` (its terms' weights and how it names the
/// subject): numbers, the kind of value asked for, what holds now, what is
/// only scheduled, conditions, a missing full stop. `None` when it is no
/// fact worth a finding.
fn judged_score(u: &sentences::Unit<'_>, lower: &str, base: f64, cx: &Judging<'_>) -> Option<f64> {
    let s = u.text;
    let mut score = base;
    if s.chars().any(|c| c.is_ascii_digit()) {
        score += 0.3;
    }
    // A version question is not answered by a test build.
    if cx.terms.values.contains(&ValueKind::Version) && names_only_prereleases(s) {
        return None;
    }
    if !cx.terms.values.is_empty() {
        // A sentence without the kind of value the aspect asks for is weak, however on-topic.
        score *= if cx.terms.values.iter().any(|&k| has_value(k, s, cx.entity)) {
            1.6
        } else {
            0.5
        };
    }
    // "Today" asks for the value in force now: a sentence saying
    // what holds now answers it, one announcing a change to come
    // (every date it names still ahead) does not.
    // A question asking for several things is answered by a sentence
    // that names several.
    if cx.asks_list && enumerates(u) {
        score += 1.0;
    }
    if cx.asks_current
        && CURRENT_MARKERS
            .iter()
            .any(|m| format!(" {lower} ").contains(m))
    {
        score += 1.0;
    }
    if cx
        .today
        .is_some_and(|t| crate::evidence::values::is_scheduled(s, t))
    {
        score *= if cx.asks_current { 0.3 } else { 0.7 };
    }
    // Conditions and possibilities ("if a breach affects...", "can be
    // checked") are not facts; advice asked for is given in them ("X
    // should be used if ...").
    let padded = format!(" {lower} ");
    if !cx.asks_advice
        && [
            " if ", " can be ", " may ", " could ", " would ", " should ", " unless ",
        ]
        .iter()
        .any(|m| padded.contains(m))
    {
        score -= 1.0;
    }
    // A row or a carried block states its value without a full stop.
    if !u.carries_block() && !u.is_row() && !s.ends_with(['.', '!', '?', '"', ')']) {
        score -= 0.75;
    }
    // A sentence that points elsewhere ("full report at x.example/y") states no fact itself.
    if u.head
        .split_whitespace()
        .any(|w| w.contains('/') && w.contains('.'))
    {
        return None;
    }
    (score >= 1.0).then_some(score)
}

/// The best sentences about an aspect, verbatim, one origin per sentence.
/// What one extraction looks for: the aspect, in the words of the question,
/// about the entity, as of the run's date.
pub(super) struct Target<'a> {
    pub aspect: &'a str,
    pub question: &'a str,
    pub entity: &'a str,
    pub today: &'a str,
}

/// What one page is to an extraction.
struct PageView {
    /// How the releases its title names stand to the asked ones.
    release: release::Scope,
    /// The asked release's own page, when the release as a whole is asked.
    own: bool,
    /// How much its sentences count: less on a page that never names the
    /// subject or that is about another release.
    relevance: f64,
    /// The terms of its title that count (in half) in each of its
    /// sentences: on the asked release's own page, the title says what
    /// every sentence is about.
    title_terms: BTreeSet<String>,
}

/// The share of an aspect's term weight a section heading names for its
/// section to be the aspect's own.
const OWN_SECTION: f64 = 0.6;

/// How much more a sentence of the aspect's own section counts (as the
/// asked release's own page does).
const OWN_SECTION_WEIGHT: f64 = 1.5;

/// What an extraction weighs every unit by, worked out once.
struct Extraction<'a> {
    terms: &'a Terms,
    weights: Weights,
    abbreviations: Abbreviations,
    lookalike: LookAlike,
    judging: Judging<'a>,
    contrast: &'a Contrast,
    releases: release::Asked,
    whole_release: bool,
    /// The aspect itself names the release it asks about.
    aspect_names_release: bool,
    entity: &'a str,
    today: &'a str,
    must_mention: bool,
    st: rust_stemmers::Stemmer,
    /// The aspect's words written in capitals ("DATETIME", "WAL"): in a
    /// question, the literal name of a keyword or a mode.
    capitals: BTreeSet<String>,
    /// The words of the question after a label's topic ("default" in
    /// "Transaction isolation levels: which is the default"): what is
    /// asked, beside the topic the other parts share.
    focus: BTreeSet<String>,
}

/// The term keys of the words of `aspect` written all in capitals, two
/// letters or more ("DATETIME", "WAL"; not "SQLite").
fn capitalised_terms(aspect: &str) -> BTreeSet<String> {
    let st = stemmer();
    aspect
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| {
            w.chars().filter(|c| c.is_alphabetic()).count() >= 2
                && w.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        })
        .map(|w| spelling_key(&st.stem(&w.to_lowercase())))
        .collect()
}

/// The term keys of the question a label asks after its topic ("Topic:
/// which is the default" → "default"); none when the label is not a
/// topic and a question.
fn focus_terms(aspect: &str) -> BTreeSet<String> {
    let Some((topic, asked)) = aspect.rsplit_once(": ") else {
        return BTreeSet::new();
    };
    if topic.trim().is_empty() || !crate::answer::is_phrased_as_question(asked) {
        return BTreeSet::new();
    }
    // Its terms as the aspect's are read ("if I don't say" asks for the
    // default).
    terms_for(asked, false)
        .stems
        .iter()
        .map(|t| spelling_key(t))
        .collect()
}

impl Extraction<'_> {
    /// A term's weight over the pages read; an exact name the aspect
    /// gives (an identifier, `pg_start_backup`, or a word in capitals,
    /// `DATETIME`) weighs double: it names what is asked about, and
    /// outweighs the common words around it ("my backup script calls");
    /// so does what a label asks after its topic ([`focus_terms`]).
    fn weight(&self, term: &str) -> f64 {
        let w = self.weights.weight(term);
        if self.capitals.contains(term)
            || self.focus.contains(term)
            || crate::answer::vote::is_identifier(term)
        {
            2.0 * w
        } else {
            w
        }
    }

    /// The aspect's term keys a section heading names (abbreviations
    /// expanded: "How WAL Works" names write-ahead logging).
    fn heading_keys(&self, heading: &str) -> BTreeSet<String> {
        let expanded = self.abbreviations.expand(heading);
        let stems = words(&expanded)
            .map(|w| self.st.stem(&w).into_owned())
            .collect();
        term_keys(self.terms, &stems)
    }

    /// Whether a heading names most of what the aspect asks (by weight):
    /// its section is the aspect's own, and answers it sentence by sentence.
    fn heads_own_section(&self, keys: &BTreeSet<String>) -> bool {
        let all: BTreeSet<String> = self.terms.stems.iter().map(|t| spelling_key(t)).collect();
        let total: f64 = all.iter().map(|k| self.weight(k)).sum();
        let named: f64 = keys.iter().map(|k| self.weight(k)).sum();
        keys.len() >= 2 && total > 0.0 && named >= OWN_SECTION * total
    }

    /// For a table row whose first cell is an asked term ("bigint | 8 bytes
    /// | ..." when a bigint is asked about), that term's weight once more:
    /// the row is the record of the asked thing, where a row that has the
    /// term in another cell ("free_space | bigint | ...") only mentions it.
    fn row_key_weight(&self, u: &sentences::Unit<'_>) -> f64 {
        if !u.is_row() {
            return 0.0;
        }
        let first = u.text.split(CELL_SEPARATOR.trim()).next().unwrap_or("");
        let stems: BTreeSet<String> = words(first)
            .map(|w| self.st.stem(&w).into_owned())
            .collect();
        let keys = term_keys(self.terms, &stems);
        if keys.is_empty() || keys.len() < stems.len() {
            return 0.0;
        }
        keys.iter().map(|k| self.weight(k)).sum()
    }

    /// The page as this extraction reads it; `None` for a page whose title
    /// names a look-alike ("Calm Read mode | Pelican Notes Help" in a
    /// question about the Pelican browser): it is about that other thing,
    /// whatever its sentences say.
    fn page_view(&self, p: &PageRead) -> Option<PageView> {
        if self.lookalike.page_is_lookalike(&p.title, &p.text) {
            return None;
        }
        let release = self.releases.scope(&p.title);
        let own = self.whole_release && release == release::Scope::Asked;
        // A page that never names the subject (an inferred subject lets it
        // through the gate) ranks below the pages that do.
        let names_subject = self.entity.is_empty()
            || crate::evidence::identity::name_strength(
                self.entity,
                &format!("{}\n{}", p.title, p.text),
            ) > 0.0;
        let relevance = if names_subject { 1.0 } else { 0.6 }
            * match release {
                // The page of the release the aspect asks about.
                release::Scope::Asked if own || self.aspect_names_release => 1.5,
                release::Scope::Other => 0.5,
                _ => 1.0,
            };
        let title_terms = if own {
            let stems = words(&p.title)
                .map(|w| self.st.stem(&w).into_owned())
                .collect();
            term_keys(self.terms, &stems)
        } else {
            BTreeSet::new()
        };
        Some(PageView {
            release,
            own,
            relevance,
            title_terms,
        })
    }

    /// A unit's score on its page; `None` when it states no finding.
    fn unit_score(
        &self,
        view: &PageView,
        p: &PageRead,
        u: &sentences::Unit<'_>,
        heading: &BTreeSet<String>,
    ) -> Option<f64> {
        let s = u.text;
        // "QuillStore Drive" is not Quillstore, "Pelican Notes" not the Pelican browser.
        if !unit_shaped(u) || self.lookalike.named_in(s) {
            return None;
        }
        let terms = self.terms;
        let lower = s.to_lowercase();
        let expanded = self.abbreviations.expand(s);
        let expanded_lower = expanded.to_lowercase();
        let stems: BTreeSet<String> = words(&expanded)
            .map(|w| self.st.stem(&w).into_owned())
            .collect();
        // Each term counts once, whatever spellings the sentence uses
        // ("License ... that licence" is one mention of a licence).
        let by_term = term_keys(terms, &stems);
        let phrases = terms
            .phrases
            .iter()
            .filter(|ph| expanded_lower.contains(ph.as_str()));
        let hits: f64 = by_term.iter().map(|k| self.weight(k)).sum::<f64>()
            + phrases.clone().map(|ph| self.weight(ph)).sum::<f64>();
        let in_title: f64 = view
            .title_terms
            .iter()
            .filter(|k| !by_term.contains(*k))
            .map(|k| self.weight(k))
            .sum::<f64>()
            + if view.own { RELEASE_WEIGHT } else { 0.0 };
        // The heading of its own section (one naming the aspect) says what
        // a sentence is about, as a title does (in half).
        let in_heading: f64 = heading
            .iter()
            .filter(|k| !by_term.contains(*k) && !view.title_terms.contains(*k))
            .map(|k| self.weight(k))
            .sum();
        let hits = hits + 0.5 * (in_title + in_heading);
        if hits == 0.0 {
            return None;
        }
        // A row's header says what its cells are: the terms only the
        // header names count at half weight.
        let in_header: f64 = u
            .header
            .map(|h| header_terms(h, &terms.stems, &by_term))
            .unwrap_or_default()
            .iter()
            .map(|k| self.weight(k))
            .sum();
        let hits = hits + 0.5 * in_header + self.row_key_weight(u);
        // On a page that never names the subject or is about another
        // release, one shared word ("works" in "How X works") is a
        // coincidence, not an answer.
        if view.relevance < 1.0 {
            let distinct =
                terms.stems.iter().filter(|t| stems.contains(*t)).count() + phrases.count();
            if distinct < 2 {
                return None;
            }
        }
        let named = if self.entity.is_empty() {
            0.0
        } else {
            crate::evidence::identity::name_strength(self.entity, s)
        };
        // In a comparison, a sentence about the other item is no answer.
        if self.must_mention && named == 0.0 {
            return None;
        }
        let mut score = judged_score(u, &lower, hits + 0.5 * named, &self.judging)?;
        // A sentence elsewhere naming only other releases tells of them.
        if view.release != release::Scope::Asked && self.releases.scope(s) == release::Scope::Other
        {
            score *= 0.5;
        }
        // Its own section answers the aspect before the rest of the page.
        let section = if heading.is_empty() {
            1.0
        } else {
            OWN_SECTION_WEIGHT
        };
        Some(
            score
                * section
                * self.contrast.weigh(s)
                * view.relevance
                * authority(&p.source_type)
                * (0.75 + 0.25 * freshness(p.as_of.as_deref(), self.today)),
        )
    }
}

pub(super) fn extract(
    target: &Target<'_>,
    order: &[String],
    pages: &BTreeMap<String, PageRead>,
    thesaurus: bool,
    must_mention: bool,
) -> Vec<Candidate> {
    let Target {
        aspect,
        question,
        entity,
        today,
    } = *target;
    let contrast = Contrast::of(aspect, question);
    let terms = contrast.terms(aspect, thesaurus);
    // "WAL" on a page that defines it speaks of the write-ahead log.
    let abbreviations = Abbreviations::of(order.iter().map(|u| pages[u].text.as_str()));
    let weights = Weights::of(&terms, order, pages, &abbreviations);
    let today_date =
        chrono::NaiveDate::parse_from_str(today.get(..10).unwrap_or(today), "%Y-%m-%d").ok();
    let explaining = contrast.asked() || explains(aspect);
    // The release the aspect asks about ("SQLite 3.35.0"): that release's
    // own page answers, pages and sentences about other releases do not.
    let own_releases = release::Asked::new(aspect, entity);
    // An aspect naming the release itself is about it; one that names none
    // inherits the question's only to tell other releases apart.
    let aspect_names_release = !own_releases.is_empty();
    let releases = if aspect_names_release {
        own_releases
    } else {
        release::Asked::new(question, entity)
    };
    let x = Extraction {
        terms: &terms,
        weights,
        abbreviations,
        lookalike: LookAlike::new(question),
        judging: Judging {
            terms: &terms,
            entity,
            asks_current: asks_current(aspect),
            asks_list: crate::answer::asks_for_list(aspect),
            asks_advice: asks_advice(aspect),
            today: today_date,
        },
        contrast: &contrast,
        whole_release: !releases.is_empty() && asks_whole_release(aspect, entity),
        aspect_names_release,
        releases,
        entity,
        today,
        must_mention,
        st: stemmer(),
        capitals: capitalised_terms(aspect),
        focus: focus_terms(aspect),
    };
    let mut all: Vec<Candidate> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for url in order {
        let p = &pages[url];
        let Some(view) = x.page_view(p) else {
            continue;
        };
        let units = sentences::units(&p.text);
        let sections = section_headings(&p.text, &units);
        // A section whose heading names the aspect answers it: its
        // sentences speak of what the heading names.
        let heading_keys: BTreeMap<&str, BTreeSet<String>> = sections
            .under
            .iter()
            .flatten()
            .map(|&h| (h, x.heading_keys(h)))
            .filter(|(_, keys)| x.heads_own_section(keys))
            .collect();
        let none = BTreeSet::new();
        let mut local: Vec<(usize, Candidate)> = units
            .iter()
            .enumerate()
            // A heading names a topic; it states no finding.
            .filter(|(ui, _)| !sections.heading[*ui])
            .filter_map(|(ui, u)| {
                let heading = sections.under[ui]
                    .and_then(|h| heading_keys.get(h))
                    .unwrap_or(&none);
                let score = x.unit_score(&view, p, u, heading)?;
                Some((ui, Candidate::new(u.text, url, p.as_of.clone(), score)))
            })
            .collect();
        local.sort_by(|a, b| b.1.score.total_cmp(&a.1.score));
        // Its sentences are not held to the page's share.
        let own_section =
            |ui: usize| sections.under[ui].is_some_and(|h| heading_keys.contains_key(h));
        // Asked what a release changed, its own page's items are the
        // answer, in the page's order, each as good as the best.
        if view.own {
            let top = local.first().map_or(0.0, |c| c.1.score);
            local.sort_by_key(|c| c.0);
            for c in &mut local {
                c.1.score = top;
            }
        }
        // An explanation goes on past its best sentence, and starts where
        // the sentence it draws from does.
        let (lead, follow) = match local.first() {
            Some((ui, best)) if explaining => (
                led_in(&p.text, &units, *ui, best),
                going_on(&p.text, &units, *ui, best),
            ),
            _ => (Vec::new(), Vec::new()),
        };
        // The asked release's own page is the answer: its list is read whole.
        let share = if view.own { MAX_FINDINGS } else { PER_PAGE };
        let mut taken = 0;
        let picked: Vec<Candidate> = local
            .into_iter()
            .filter(|(ui, _)| {
                let own = own_section(*ui);
                taken += usize::from(!own);
                own || taken <= share
            })
            .map(|(_, c)| c)
            .collect();
        for c in lead.into_iter().chain(picked).chain(follow) {
            // The same sentence on two pages (a syndicated copy) counts once.
            if seen.insert(quotes::normalize(&c.sentence).to_lowercase()) {
                all.push(c);
            }
        }
    }
    all.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| b.as_of.cmp(&a.as_of))
            .then_with(|| a.url.cmp(&b.url))
    });
    all.truncate(MAX_FINDINGS);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_running_through_short_items_enumerates() {
        let unit = |s| sentences::Unit {
            text: s,
            head: s,
            header: None,
        };
        for s in [
            "The server provides several index kinds: Alpha, Beta, Gamma-2, Delta, and the extension Omega.",
            "Four cities publish feeds: Port Alder, Velmont, Haverlund and Castellan Bay.",
        ] {
            assert!(enumerates(&unit(s)), "{s}");
        }
        for s in [
            "Normally, the planner makes reasonable choices about index usage (e.g., it avoids them when retrieving common values, so the earlier example only saves index size), and bad choices are rare.",
            "The index is rebuilt and the table is locked.",
            "In May, the company said it had raised money and hired staff.",
        ] {
            assert!(!enumerates(&unit(s)), "{s}");
        }
    }

    #[test]
    fn what_a_label_asks_after_its_topic_weighs_more_than_the_topic() {
        assert!(focus_terms("Isolation levels: which is the default").contains("default"));
        assert!(focus_terms("Isolation levels").is_empty());
        let f = extract_one(
            "Transaction isolation levels: which is the default",
            "Which transaction isolation levels are there, and which is the default?",
            "In Quokka, you can request any of the four standard transaction isolation levels, but only three distinct isolation levels are implemented.\nTo set the transaction isolation level of a transaction, use the command SET TRANSACTION.\nSteady is the default isolation level in Quokka.\nThe default page size is 8 kB.\nThe default port is 4100.\nBy default, logs go to the data folder.\nThe default encoding is UTF-8.",
        );
        assert!(
            f[0].sentence.starts_with("Steady is the default"),
            "{}",
            f[0].sentence
        );
    }

    #[test]
    fn a_relation_of_one_item_to_the_other_sets_them_apart() {
        let c = Contrast::of(
            "Differences between Lark and Wren",
            "Lark or Wren: how do they differ?",
        );
        assert_eq!(c.weigh("Wren is an enhancement to Lark."), 3.0);
        assert_eq!(c.weigh("Wren is faster than Lark."), 3.0);
        assert_eq!(c.weigh("Lark and Wren both index documents."), 1.5);
        assert_eq!(c.weigh("Wren indexes documents."), 1.0);
    }

    #[test]
    fn a_sentence_adding_to_the_one_before_goes_on_with_it() {
        let text = "Wren stores a binary copy, while Lark stores the text. Wren also supports indexing, a real advantage. Lark keeps white space.";
        let units = sentences::units(text);
        assert_eq!(
            continuation(text, &units, 0),
            vec!["Wren also supports indexing, a real advantage."]
        );
    }

    #[test]
    fn a_sentence_speaking_of_such_a_thing_refers_back() {
        assert!(refers_back(
            "While it has advantages elsewhere, there is no such advantage here."
        ));
        assert!(refers_back("Therefore, it is slower."));
        assert!(!refers_back("Types such as text and varchar are alike."));
        assert!(!refers_back(
            "There is no performance difference among them."
        ));
    }

    #[test]
    fn asked_which_to_choose_the_recommendation_leads() {
        let text = "Lark and Wren are modules that let users search documents.\nWren is sometimes much faster than Lark, though in the common case the two perform alike. On the other hand, Wren needs a little more disk space than Lark. For newer applications, Wren is recommended; though if compatibility with older versions is important, then Lark will usually serve just as well.";
        let question = "Lark or Wren: how do they differ, and which one should I use?";
        let ask = |aspect| extract_one(aspect, question, text);
        let f = ask("Which to choose: Lark or Wren");
        assert!(
            f[0].sentence.contains("Wren is recommended"),
            "{}",
            f[0].sentence
        );
        // How they differ is told by the sentences setting them apart.
        let f = ask("Differences between Lark and Wren");
        assert!(f[0].sentence.contains("faster than"), "{}", f[0].sentence);
    }

    #[test]
    fn extracts_relevant_verbatim_sentences() {
        let mut pages = BTreeMap::new();
        pages.insert(
            "u1".to_string(),
            PageRead {
                text: "Acme appointed Jane Doe as chief executive officer in 2026. The office has a nice garden. Menu".into(),
                as_of: Some("2026-01-01".into()),
                ..Default::default()
            },
        );
        let target = Target {
            aspect: "leadership",
            question: "Who leads Acme?",
            entity: "Acme",
            today: "2026-06-01",
        };
        let f = extract(&target, &["u1".to_string()], &pages, true, false);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].sentence,
            "Acme appointed Jane Doe as chief executive officer in 2026."
        );
    }

    #[test]
    fn a_release_is_answered_by_its_own_page_item_by_item() {
        let mut pages = BTreeMap::new();
        // Another release's news, with the words of the question.
        pages.insert(
            "news".to_string(),
            page(
                "Quokka version 4.9.1 changed the cache and added a new patch for large caches.",
                "Quokka News",
                "2026-01-01",
                "other",
            ),
        );
        // The asked release's page: a list whose items share no word with the question.
        pages.insert(
            "rel".to_string(),
            page(
                "Quokka Release 4.12.0\n\nStrict tables provide a prescriptive style of typing.\nThe planner omits redundant sort clauses on subqueries.\nUse less memory to hold the database schema.",
                "Quokka Release 4.12.0",
                "2026-01-01",
                "other",
            ),
        );
        let f = ask(
            "What did Quokka 4.12.0 change?",
            "Quokka",
            &pages,
            &["news", "rel"],
        );
        let got: Vec<&str> = f.iter().map(|c| c.sentence.as_str()).collect();
        assert!(got.len() >= 3, "{got:?}");
        assert_eq!(
            got[..3],
            [
                "Strict tables provide a prescriptive style of typing.",
                "The planner omits redundant sort clauses on subqueries.",
                "Use less memory to hold the database schema.",
            ],
            "{got:?}"
        );
    }

    #[test]
    fn a_keyword_written_in_capitals_outweighs_the_common_words_around_it() {
        let text = format!(
            "Each column in a table gets an affinity.\n{}\nExample Typenames | Resulting Affinity\nDATE QUOKKATIME | NUMERIC\nTEXT CLOB | TEXT",
            (1..=12)
                .map(|i| format!("Rule {i} gives a column declared one way its affinity."))
                .collect::<Vec<_>>()
                .join("\n")
        );
        let q = "What affinity does a column declared as QUOKKATIME get?";
        let f = ask_one_page(q, &text, "Datatypes");
        assert_eq!(
            f[0].sentence,
            "DATE QUOKKATIME | NUMERIC",
            "{:?}",
            f.iter().map(|c| (&c.sentence, c.score)).collect::<Vec<_>>()
        );
        assert_eq!(
            capitalised_terms("Is WAL faster in SQLite than DELETE mode?").len(),
            2
        );
    }

    #[test]
    fn an_identifier_the_question_names_outweighs_its_common_words() {
        let text = "Many people call a backup script from cron to start the backup of the database. The function start_copy() has been renamed to copy_begin() in this release. Scripts calling it must change.";
        let q = "My backup script calls start_copy(). What happened to it?";
        let f = ask_one_page(q, text, "Release notes");
        assert_eq!(
            f[0].sentence,
            "The function start_copy() has been renamed to copy_begin() in this release.",
        );
    }

    /// What [`extract`] finds for `question` (its own aspect) about
    /// `entity` in the pages read in `order`, without the thesaurus.
    fn ask(
        question: &str,
        entity: &str,
        pages: &BTreeMap<String, PageRead>,
        order: &[&str],
    ) -> Vec<Candidate> {
        let target = Target {
            aspect: question,
            question,
            entity,
            today: "2026-06-01",
        };
        let order: Vec<String> = order.iter().map(|u| u.to_string()).collect();
        extract(&target, &order, pages, false, false)
    }

    /// What [`ask`] finds for `question` on one page of `text`.
    fn ask_one_page(question: &str, text: &str, title: &str) -> Vec<Candidate> {
        let pages = BTreeMap::from([("u".to_string(), page(text, title, "2026-01-01", "other"))]);
        ask(question, "", &pages, &["u"])
    }

    /// The findings for `aspect` of `question` on one page of `text`.
    fn extract_one(aspect: &str, question: &str, text: &str) -> Vec<Candidate> {
        let mut pages = BTreeMap::new();
        pages.insert("u1".to_string(), page(text, "", "2026-01-01", "other"));
        let target = Target {
            aspect,
            question,
            entity: "",
            today: "2026-06-01",
        };
        extract(&target, &["u1".to_string()], &pages, false, false)
    }

    fn page(text: &str, title: &str, as_of: &str, source_type: &str) -> PageRead {
        PageRead {
            text: text.into(),
            title: title.into(),
            as_of: Some(as_of.into()),
            source_type: source_type.into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_table_row_keyed_by_the_asked_thing_outranks_rows_that_only_mention_it() {
        // Rows where "quadword" is a column's type mention it; the row
        // whose first cell is "quadword" is its record.
        let text = "Name | Storage Size | Description\n\
            halfword | 2 bytes | small integer\n\
            quadword | 8 bytes | large integer\n\n\
            Column | Type | Description\n\
            free_bytes | quadword | Total free space in bytes\n\
            used_bytes | quadword | Total used space in bytes";
        let f = ask_one_page("How much space does a quadword take?", text, "Types");
        assert_eq!(
            f.first().map(|c| c.sentence.as_str()),
            Some("quadword | 8 bytes | large integer"),
            "{:?}",
            f.iter().map(|c| &c.sentence).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_short_sentence_carrying_a_list_can_state_a_finding() {
        let text = "The differences are:\n\nQuokka keeps an index.\nBrolly keeps none.";
        let units = sentences::units(text);
        assert!(units[0].carries_block() && unit_shaped(&units[0]));
        let alone = sentences::units("The differences are clear.");
        assert!(!unit_shaped(&alone[0]));
    }

    #[test]
    fn the_section_a_heading_names_answers_before_the_rest_of_the_page() {
        // The section "How Paging Works" says how, naming paging but not
        // "works"; the page's other sentences name all three words.
        let text = "Quokka Manual\n\n\
            1. Overview\n\n\
            Quokka paging works well with small tables and works less well with huge ones.\n\n\
            Since version 2.0, Quokka paging works with compressed tables too.\n\n\
            2. How Paging Works\n\n\
            Quokka paging cuts each table into blocks of 8 kB kept in a ring buffer.\n\
            A paged block that was not touched for a minute is written back to disk.\n\
            A paged block that is asked for again is read from disk into the ring.\n\n\
            3. Limits\n\n\
            Quokka paging works up to tables of 2 TB.";
        let f = ask_one_page("How does paging work in Quokka?", text, "Quokka Manual");
        let sentences: Vec<&str> = f.iter().map(|c| c.sentence.as_str()).collect();
        // The section answers first, and all its sentences are read,
        // beyond a page's share (two).
        let section = [
            "Quokka paging cuts each table into blocks of 8 kB kept in a ring buffer.",
            "A paged block that was not touched for a minute is written back to disk.",
            "A paged block that is asked for again is read from disk into the ring.",
        ];
        assert_eq!(sentences.first(), Some(&section[0]), "{sentences:?}");
        assert!(
            section.iter().all(|s| sentences.contains(s)),
            "{sentences:?}"
        );
    }

    #[test]
    fn an_explanation_starts_where_the_sentence_it_draws_from_does() {
        // The best sentence draws from the one before it ("Therefore"),
        // which says why; a sentence in another paragraph does not lead in.
        let text = "Kelpbase appeared in 2019.\n\
            Kelpbase keeps rows in fixed pages of 4 kB. \
            Therefore, Kelpbase cannot store very large cell values directly in a row.";
        let f = ask_one_page(
            "How does Kelpbase store very large cell values?",
            text,
            "Storage",
        );
        let f: Vec<&str> = f.iter().map(|c| c.sentence.as_str()).collect();
        assert_eq!(
            f.get(..2),
            Some(
                &[
                    "Kelpbase keeps rows in fixed pages of 4 kB.",
                    "Therefore, Kelpbase cannot store very large cell values directly in a row.",
                ][..]
            ),
            "{f:?}"
        );
        assert!(!f.contains(&"Kelpbase appeared in 2019."), "{f:?}");
    }

    #[test]
    fn an_explanation_goes_on_with_the_sentences_that_refer_back() {
        let mut pages = BTreeMap::new();
        pages.insert(
            "u".to_string(),
            page(
                "Kelpbase keeps rows in fixed pages of 4 kB, so it cannot store very large cell values directly. \
                 To overcome this limit, large cell values are squeezed and split into side rows. \
                 This happens without the user noticing. \
                 Kelpbase was first released in 2019.\n\
                 Such details are covered in the next chapter.",
                "Storage",
                "2026-01-01",
                "official",
            ),
        );
        let target = Target {
            aspect: "How does Kelpbase store very large cell values",
            question: "How does Kelpbase store very large cell values?",
            entity: "Kelpbase",
            today: "2026-06-01",
        };
        let f: Vec<String> = extract(&target, &["u".to_string()], &pages, false, false)
            .into_iter()
            .map(|c| c.sentence)
            .collect();
        assert!(
            f.iter().any(|s| s.starts_with("To overcome this limit")),
            "{f:?}"
        );
        assert!(f.iter().any(|s| s.starts_with("This happens")), "{f:?}");
        // Not a sentence that refers to nothing before it, nor one past a
        // paragraph's end.
        assert!(
            !f.iter().any(|s| s.starts_with("Kelpbase was first")),
            "{f:?}"
        );
        assert!(!f.iter().any(|s| s.starts_with("Such details")), "{f:?}");
    }

    #[test]
    fn how_two_items_differ_is_told_by_a_sentence_setting_them_against_each_other() {
        let mut pages = BTreeMap::new();
        pages.insert(
            "u".to_string(),
            page(
                "Kelp and Kelpb are two column types. Kelp keeps the text as written. \
                 For example, see the differences here: SELECT kelp, kelpb FROM t. \
                 The kelp type stores an exact copy of the text, while kelpb is stored in a parsed form that is faster to search.",
                "Kelp types",
                "2026-01-01",
                "official",
            ),
        );
        let target = Target {
            aspect: "Differences between kelp and kelpb",
            question: "kelp or kelpb: what is the difference?",
            entity: "",
            today: "2026-06-01",
        };
        let f = extract(&target, &["u".to_string()], &pages, false, false);
        assert!(
            f.first()
                .is_some_and(|c| c.sentence.starts_with("The kelp type stores")),
            "{:?}",
            f.iter().map(|c| (&c.sentence, c.score)).collect::<Vec<_>>()
        );
        assert!(contains_name("Kelp and Kelpb differ", "kelpb"));
        assert!(!contains_name("Kelpbase", "kelp"));
    }

    #[test]
    fn headings_and_breadcrumbs_are_not_sentences() {
        assert!(!shaped_with(
            "# Decision: Lanholm Congestion Charging Order 2024",
            1
        ));
        assert!(!shaped_with("Help › Reading › Calm Read mode", 1));
        assert!(!shaped_with("Calm Read mode | Pelican Notes Help", 1));
        assert!(shaped_with(
            "The Lanholm congestion charge came into force on 6 January 2025.",
            2
        ));
        // "Advantages include:" has one lowercase word: enough only for
        // a sentence carrying a block.
        assert!(shaped_with("Advantages include:", 1));
        assert!(!shaped_with("Advantages include:", 2));
        let mut pages = BTreeMap::new();
        pages.insert(
            "u".to_string(),
            page(
                "# Lanholm congestion charge: monitoring report 2026\n\nThe Lanholm congestion charge came into force on 6 January 2025.",
                "Monitoring",
                "2026-07-30",
                "regulator",
            ),
        );
        let target = Target {
            aspect: "When was the Lanholm congestion charge brought into force",
            question: "When was the Lanholm congestion charge brought into force?",
            entity: "Lanholm",
            today: "2026-12-01",
        };
        let f = extract(&target, &["u".to_string()], &pages, false, false);
        assert!(
            f.iter().all(|c| !c.sentence.starts_with('#')),
            "{:?}",
            f.iter().map(|c| &c.sentence).collect::<Vec<_>>()
        );
        assert!(!f.is_empty());
    }

    #[test]
    fn today_prefers_the_value_in_force_over_a_scheduled_one() {
        let mut pages = BTreeMap::new();
        pages.insert(
            "u".to_string(),
            page(
                "From 5 January 2027 the daily charge will be £9. The Lanholm congestion charge is currently £7.50 a day.",
                "Congestion charge",
                "2026-09-10",
                "official",
            ),
        );
        let target = Target {
            aspect: "What is the daily charge today",
            question: "What is the Lanholm daily charge today?",
            entity: "Lanholm",
            today: "2026-12-01",
        };
        let f = extract(&target, &["u".to_string()], &pages, false, false);
        assert_eq!(
            f.first().map(|c| c.sentence.as_str()),
            Some("The Lanholm congestion charge is currently £7.50 a day.")
        );
    }

    #[test]
    fn a_page_titled_with_a_look_alike_gives_no_findings() {
        let mut pages = BTreeMap::new();
        pages.insert(
            "u".to_string(),
            page(
                "Pelican Notes is a notes app. Calm Read mode shows a note without the sidebar after 200 words.",
                "Calm Read mode | Pelican Notes Help",
                "2026-02-17",
                "official",
            ),
        );
        let target = Target {
            aspect: "When does Calm Read refuse to offer reading mode",
            question: "When does Calm Read, the reading mode of the Pelican browser, refuse to offer reading mode?",
            entity: "Calm Read",
            today: "2026-12-01",
        };
        assert!(extract(&target, &["u".to_string()], &pages, false, false).is_empty());
        // A news site named after the subject writes about it by its plain name.
        let l = LookAlike::new("When was the Lanholm congestion charge brought into force?");
        assert!(!l.page_is_lookalike(
            "Lanholm congestion charge begins today | Lanholm Echo",
            "The Lanholm congestion charge came into force on 6 January 2025. Lanholm Echo staff."
        ));
        let p =
            LookAlike::new("How does Calm Read, the reading mode of the Pelican browser, work?");
        assert!(p.page_is_lookalike(
            "Calm Read mode | Pelican Notes Help",
            "Pelican Notes keeps notes. In Pelican Notes, Calm Read mode hides the sidebar. Not the Pelican web browser."
        ));
        let d = LookAlike::new("Is PadmaPay licensed?");
        assert!(!d.page_is_lookalike(
            "Registry entry: PadmaPay Technologies Private Limited",
            "PadmaPay Technologies Private Limited holds an authorisation. PadmaPay Technologies Private Limited, Kochi."
        ));
        assert!(!p.page_is_lookalike(
            "Calm Read: read articles without clutter | Pelican Support",
            "Calm Read removes navigation menus."
        ));
    }

    #[test]
    fn sentences_about_a_look_alike_of_the_same_name_are_not_findings() {
        let l = LookAlike::new(
            "How does Calm Read, the reading mode of the Pelican browser, work in Lanholm?",
        );
        assert!(l.named_in("Calm Read mode in Pelican Notes hides the sidebar."));
        assert!(l.named_in("The maker, Pelican Software GmbH, said so."));
        assert!(!l.named_in("With Pelican 42, Calm Read switches to a density scorer."));
        assert!(!l.named_in("Calm Read in the Pelican Browser strips banners."));
        assert!(!l.named_in("Lanholm City Council proposed a charge on 14 March 2024."));
        assert!(!l.named_in("Pelican. Notes are kept."));
        assert!(!l.named_in("In Pelican Calm Read is on by default."));
        let q = LookAlike::new("How do Quillstore and Brinewood compare?");
        assert!(q.named_in("The maximum file size on QuillStore Drive is 50 GB."));
        assert!(!q.named_in("Quillstore is licensed under the Business Source License."));
    }
}
