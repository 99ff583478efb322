//! Decomposing a question into aspects, the units one sub-researcher
//! researches. Deterministic, so the offline planner uses it as its plan
//! and the online engine uses it to check the plan a model writes.
//!
//! - a list the question spells out ("check leadership, licence and
//!   funding") is the plan, whatever the kind;
//! - due diligence without a list gets the standard checklist;
//! - a comparison gets one aspect per compared item and criterion;
//! - every clause of a compound question ("what..., when..., which...")
//!   is an aspect, its pronouns replaced by the topic so it reads alone;
//! - how-it-works asks what it is and how it works (components and limits only
//!   when an overview is asked for); a landscape adds
//!   evidence per listed item; a what-changed question with one clause adds
//!   its dates and the state before.

use std::sync::LazyLock;

use super::text::{Folded, capitalise, has_word, shorten, tidy};
use super::{QuestionKind, classify};

/// The aspects of a due-diligence question that names none.
pub const DUE_DILIGENCE_CHECKLIST: &[&str] = &[
    "leadership",
    "licence and regulatory status",
    "funding",
    "reliability and incidents",
    "pricing",
    "customer sentiment",
];

/// The most aspects one question is split into.
pub const MAX_ASPECTS: usize = 10;
/// The longest aspect label, in characters.
const MAX_LABEL: usize = 110;

/// A question read for planning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decomposition {
    pub kind: QuestionKind,
    /// What the question is about, as a phrase of the question ("version 3
    /// of the Open Transit Feed standard"), when one was found.
    pub topic: Option<String>,
    /// Readable labels, one per aspect to research.
    pub aspects: Vec<String>,
    /// The aspects are (or include) a kind's template, not only what the
    /// question asks: the due-diligence checklist, "What X is" and "How X
    /// works" for a bare "How does X work?", the when and before of a bare
    /// "What changed in X?". A skill's own checklist may replace them.
    pub templated: bool,
}

/// Splits a question into its kind, topic and aspects. `subject` is the
/// entity named by flags or inferred from the question, if any.
pub fn decompose(question: &str, subject: Option<&str>) -> Decomposition {
    let q = question.trim();
    let kind = classify(q);
    let subject = subject.map(str::trim).filter(|s| !s.is_empty());
    let clauses = clauses(q);
    let topic = clauses
        .first()
        .and_then(|c| topic_of(c))
        .or_else(|| subject.map(String::from));

    let mut aspects: Vec<String> = Vec::new();
    if kind == QuestionKind::Comparison
        && let Some(c) = comparison(q)
    {
        aspects = c;
    }
    if aspects.is_empty()
        && let Some(items) = enumerated(q)
    {
        aspects = items;
    }
    let mut templated = false;
    if aspects.is_empty() {
        (aspects, templated) = match kind {
            QuestionKind::DueDiligence => (
                DUE_DILIGENCE_CHECKLIST
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                true,
            ),
            _ => by_clause(kind, &clauses, topic.as_deref(), subject),
        };
    }
    let mut seen = std::collections::BTreeSet::new();
    aspects.retain(|a| !a.is_empty() && seen.insert(a.to_lowercase()));
    aspects.truncate(MAX_ASPECTS);
    if aspects.is_empty() {
        let whole = tidy(q);
        aspects.push(if whole.is_empty() {
            "the question".to_string()
        } else {
            shorten(&capitalise(&whole), MAX_LABEL)
        });
    }
    Decomposition {
        kind,
        topic,
        aspects,
        templated,
    }
}

/// The longest todo, in words, that still reads as an aspect.
const MAX_TODO_WORDS: usize = 20;

/// What is wrong with a plan a model wrote for a question, one sentence per
/// problem naming it: a single todo for a question that asks several
/// things, or todos far longer than a phrase. Empty for a good plan.
pub fn plan_problems(question: &str, subject: Option<&str>, todos: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    let expected = decompose(question, subject);
    // One todo that restates a question asking several things: most of the
    // question's words are in it.
    let content = |t: &str| -> std::collections::BTreeSet<String> {
        super::text::words(t)
            .map(str::to_lowercase)
            .filter(|w| w.chars().count() > 3)
            .collect()
    };
    let restates = |todo: &str| {
        let q = content(question);
        !q.is_empty() && q.intersection(&content(todo)).count() * 5 >= q.len() * 3
    };
    if todos.len() == 1 && expected.aspects.len() >= 2 && restates(todos[0]) {
        problems.push(format!(
            "the plan is one todo that restates the question, but the question asks {} things ({}); write one todo per aspect",
            expected.aspects.len(),
            expected.aspects.join("; ")
        ));
    }
    for (i, t) in todos.iter().enumerate() {
        let n = t.split_whitespace().count();
        if n > MAX_TODO_WORDS {
            problems.push(format!(
                "todo {} is {n} words long; an aspect is a short phrase (at most {MAX_TODO_WORDS} words) naming one thing to find out",
                i + 1
            ));
        }
    }
    problems
}

/// Words that open a new question inside a sentence ("..., when did...").
const CLAUSE_OPENERS: &[&str] = &[
    "what", "what's", "when", "which", "who", "whom", "whose", "why", "where", "how", "whether",
    "is", "are", "was", "were", "does", "do", "did", "has", "have", "can", "could", "should",
    "will", "would",
];

/// The clauses of a question: sentences, and within a sentence the parts
/// that start with a question word after a comma, `and` or `or`.
fn clauses(q: &str) -> Vec<String> {
    let mut out = Vec::new();
    for sentence in q.split(['?', ';', '\n']) {
        let mut current: Vec<&str> = Vec::new();
        let tokens: Vec<&str> = sentence.split_whitespace().collect();
        let mut i = 0;
        while i < tokens.len() {
            let t = tokens[i];
            let prev_ends_comma = current.last().is_some_and(|p| p.ends_with(','));
            let joiner = matches!(t.to_lowercase().as_str(), "and" | "or" | "but");
            let next_opens = |k: usize| {
                tokens.get(k).is_some_and(|n| {
                    CLAUSE_OPENERS.contains(&n.to_lowercase().trim_end_matches(','))
                })
            };
            let breaks_here = !current.is_empty()
                && ((joiner && next_opens(i + 1))
                    || (prev_ends_comma && next_opens(i) && is_wh(tokens[i])));
            if breaks_here {
                out.push(tidy(&current.join(" ")));
                current.clear();
                if joiner {
                    i += 1;
                    continue;
                }
            }
            current.push(t);
            i += 1;
        }
        if !current.is_empty() {
            out.push(tidy(&current.join(" ")));
        }
    }
    out.retain(|c| !c.is_empty());
    out.into_iter().flat_map(|c| event_list(&c)).collect()
}

/// "When was X proposed, passed and amended" asks three dates: one clause
/// per event ("When was X proposed", "When was X passed", ...).
fn event_list(clause: &str) -> Vec<String> {
    let lower = clause.to_lowercase();
    let Some(aux) = ["when was ", "when were ", "when did "]
        .iter()
        .find(|a| lower.starts_with(**a))
    else {
        return vec![clause.to_string()];
    };
    let parts: Vec<&str> = clause
        .split(", ")
        .flat_map(|p| p.split(" and "))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let short_rest = parts.len() >= 3
        && parts[1..].iter().all(|p| {
            p.split_whitespace().count() <= 4 && p.chars().next().is_some_and(char::is_lowercase)
        });
    let Some((head, first_event)) = parts.first().and_then(|p| p.rsplit_once(' ')) else {
        return vec![clause.to_string()];
    };
    if !short_rest || head.len() <= aux.len() {
        return vec![clause.to_string()];
    }
    let mut events = vec![first_event];
    events.extend(parts[1..].iter().copied());
    events.into_iter().map(|e| format!("{head} {e}")).collect()
}

/// A question word that starts a clause after a comma (not an auxiliary:
/// "London, is" rarely starts a new question).
fn is_wh(token: &str) -> bool {
    matches!(
        token.to_lowercase().as_str(),
        "what" | "what's" | "when" | "which" | "who" | "whom" | "whose" | "why" | "where" | "how"
    )
}

/// The phrase a clause asks about: "What changed in X" → X, "What is X"
/// → X, "How does X work" → X. None when the clause has no such shape or
/// the phrase is a pronoun or too long to be a name for the topic.
fn topic_of(clause: &str) -> Option<String> {
    const OPENERS: &[&str] = &[
        "what has changed in ",
        "what has changed about ",
        "what changed in ",
        "what changed about ",
        "what's changed in ",
        "what is new in ",
        "what's new in ",
        "what are the changes in ",
        "what are the changes to ",
        "changes in ",
        "changes to ",
        "explain how ",
        "how does ",
        "how do ",
        "how is ",
        "how are ",
        "what is ",
        "what are ",
        "what's ",
        "explain ",
        "describe ",
    ];
    let f = Folded::new(clause);
    let opener = OPENERS.iter().find(|o| f.lower.starts_with(**o))?;
    let mut end = f.lower.len();
    if opener.starts_with("how") || opener.starts_with("explain how") {
        for tail in [" work", " function", " operate"] {
            if let Some(p) = f.lower.rfind(tail) {
                end = end.min(p);
            }
        }
    }
    let topic = tidy(f.slice(opener.len(), end));
    let topic = topic
        .strip_prefix("the ")
        .or_else(|| topic.strip_prefix("The "))
        .unwrap_or(&topic)
        .to_string();
    let n = topic.split_whitespace().count();
    let pronoun = matches!(
        topic.to_lowercase().as_str(),
        "it" | "they" | "this" | "that"
    );
    (n > 0 && n <= 10 && !pronoun).then_some(topic)
}

/// Replaces the pronoun `it` (and `its`) with the topic so a clause reads alone.
pub(crate) fn resolve_pronouns(clause: &str, topic: Option<&str>) -> String {
    let Some(topic) = topic else {
        return clause.to_string();
    };
    clause
        .split(' ')
        .map(|w| {
            let core = w.trim_end_matches([',', '.', '?', '!', ';', ':']);
            let rest = &w[core.len()..];
            match core.to_lowercase().as_str() {
                "it" => format!("{topic}{rest}"),
                "its" => format!("{topic}'s{rest}"),
                _ => w.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Replaces the pronoun `one` after an auxiliary ("how much space does
/// one take") with the last indefinite noun phrase of the clauses before
/// it ("a bigint"), which is what such a `one` stands for.
fn resolve_one(clause: &str, before: &[String]) -> String {
    let Some(antecedent) = before.iter().rev().find_map(|c| indefinite_phrase(c)) else {
        return clause.to_string();
    };
    let words: Vec<&str> = clause.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let core = w.trim_end_matches([',', '.', '?', '!', ';', ':']);
        let after_aux = i > 0
            && matches!(
                words[i - 1].to_lowercase().as_str(),
                "does" | "do" | "did" | "can" | "could" | "should" | "would" | "will" | "is"
            );
        if core.eq_ignore_ascii_case("one") && after_aux {
            out.push(format!("{antecedent}{}", &w[core.len()..]));
        } else {
            out.push((*w).to_string());
        }
    }
    out.join(" ")
}

/// A later clause asking "which one" (or "which is ...") of what an
/// earlier one named ("What can I put after ON CONFLICT ..., and which one
/// applies if I don't say?"; "Which isolation levels are there, and which
/// is the default?"), led by that name so it reads alone ("ON CONFLICT:
/// which one applies if I don't say"; "isolation levels: which is the
/// default"). A clause naming something itself is as it is.
fn name_which_one(clause: &str, before: &[String]) -> String {
    let lower = clause.to_lowercase();
    let asks_one = [
        "which one",
        "which ones",
        "what one",
        "which is",
        "which are",
        "which was",
        "which were",
    ]
    .iter()
    .any(|p| {
        lower.strip_prefix(p).is_some_and(|rest| {
            rest.chars()
                .next()
                .is_none_or(|c| matches!(c, ' ' | '?' | ','))
        })
    });
    if !asks_one || first_name(clause).is_some() {
        return clause.to_string();
    }
    match before
        .iter()
        .rev()
        .find_map(|c| first_name(c).or_else(|| asked_things(c)))
    {
        Some(name) => format!("{name}: {clause}"),
        None => clause.to_string(),
    }
}

/// Words a "which ..." or "what ..." clause asks for, up to its verb
/// ("transaction isolation levels" of "Which transaction isolation levels
/// are there"): one to four words, none a function word.
fn asked_things(clause: &str) -> Option<String> {
    let mut words = clause.split_whitespace();
    let wh = words.next()?.to_lowercase();
    if !matches!(wh.as_str(), "which" | "what") {
        return None;
    }
    let things: Vec<&str> = words
        .take_while(|w| !crate::answer::AUXILIARIES.contains(&w.to_lowercase().as_str()))
        .collect();
    ((1..=4).contains(&things.len())
        && things.iter().all(|w| {
            w.chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
                && !super::query::is_stop(w)
        }))
    .then(|| things.join(" "))
}

/// The first run of capitalised words of a clause after its first word
/// ("ON CONFLICT" of "What can I put after ON CONFLICT in SQLite"); "I" is
/// no name.
fn first_name(clause: &str) -> Option<String> {
    let mut run: Vec<&str> = Vec::new();
    for w in clause.split_whitespace().skip(1) {
        let core = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
        let named = core != "I" && core.chars().next().is_some_and(char::is_uppercase);
        if named {
            run.push(core);
        } else if !run.is_empty() {
            break;
        }
        if !run.is_empty() && core.len() < w.len() && w.ends_with([',', ';', ':', '?']) {
            break;
        }
    }
    (!run.is_empty()).then(|| run.join(" "))
}

/// The last "a X" / "an X" of a clause, X a word that is not a function
/// word ("a bigint" in "the largest number a bigint can hold").
fn indefinite_phrase(clause: &str) -> Option<String> {
    let words: Vec<&str> = clause.split_whitespace().collect();
    words.windows(2).rev().find_map(|pair| {
        let noun = pair[1].trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
        let article = pair[0].to_lowercase();
        (matches!(article.as_str(), "a" | "an") && !noun.is_empty() && !super::query::is_stop(noun))
            .then(|| format!("{} {noun}", pair[0].to_lowercase()))
    })
}

fn label(clause: &str) -> String {
    shorten(&capitalise(&tidy(&drop_apposition(clause))), MAX_LABEL)
}

/// "Calm Read, the reading mode of the Pelican browser, pick..." → "Calm
/// Read pick...": an aside between commas that starts with an article.
fn drop_apposition(clause: &str) -> String {
    for article in [", the ", ", a ", ", an "] {
        if let Some(start) = clause.find(article)
            && let Some(len) = clause[start + 2..].find(", ")
        {
            let end = start + 2 + len + 1;
            return format!("{}{}", &clause[..start], &clause[end..]);
        }
    }
    clause.to_string()
}

/// Words by which a question asks for an overview of its topic, not for
/// one thing about it.
const OVERVIEW_WORDS: &[&str] = &[
    "overview",
    "in detail",
    "in depth",
    "everything",
    "introduction",
    "architecture",
];

fn asks_overview(clauses: &[String]) -> bool {
    clauses.iter().any(|c| {
        let lower = c.to_lowercase();
        OVERVIEW_WORDS.iter().any(|w| lower.contains(w))
    })
}

fn starts_with_any(clause: &str, prefixes: &[&str]) -> bool {
    let lower = clause.to_lowercase();
    prefixes.iter().any(|p| lower.starts_with(p))
}

fn by_clause(
    kind: QuestionKind,
    clauses: &[String],
    topic: Option<&str>,
    subject: Option<&str>,
) -> (Vec<String>, bool) {
    let mut out: Vec<String> = Vec::new();
    let mut templated = false;
    match kind {
        QuestionKind::HowItWorks => {
            let t = topic.or(subject).unwrap_or("it");
            let is_definition = |c: &str| {
                starts_with_any(c, &["what is ", "what are ", "what's "])
                    && topic_of(c).as_deref() == Some(t)
            };
            let is_mechanism = |c: &str| {
                let lower = c.to_lowercase();
                starts_with_any(c, &["how does ", "how do ", "how is ", "how are "])
                    && [" work", " works", " function", " operate"]
                        .iter()
                        .any(|w| lower.ends_with(w))
                    && topic_of(c).is_none_or(|x| x == t || x == "it")
            };
            // A question that only asks what the topic is and how it works
            // gets the two standard parts of an explanation; one that asks
            // more is planned by its own clauses.
            let generic = clauses.iter().all(|c| is_definition(c) || is_mechanism(c));
            if generic {
                out.push(format!("What {t} is"));
                out.push(format!("How {t} works"));
                templated = clauses.len() < 2;
            } else {
                for c in clauses {
                    out.push(label(&resolve_pronouns(c, Some(t))));
                }
            }
            // Components and limits only when the question asks for an overview.
            if asks_overview(clauses) {
                out.push(format!("Components of {t}"));
                out.push(format!("Limits and known problems of {t}"));
                templated = true;
            }
        }
        QuestionKind::Landscape => {
            for (i, c) in clauses.iter().enumerate() {
                let c = if i == 0 {
                    c.clone()
                } else {
                    resolve_pronouns(c, topic)
                };
                out.push(label(&c));
                if let Some(e) = evidence_per_item(&c) {
                    out.push(e);
                }
            }
        }
        _ => {
            for (i, c) in clauses.iter().enumerate() {
                // The first clause names the topic; later ones refer to it.
                let c = if i == 0 {
                    c.clone()
                } else {
                    name_which_one(
                        &resolve_one(&resolve_pronouns(c, topic), &clauses[..i]),
                        &clauses[..i],
                    )
                };
                out.push(label(&c));
                // A list inside a compound question also needs evidence per item.
                if i > 0
                    && let Some(e) = evidence_per_item(&c)
                {
                    out.push(e);
                }
            }
            // A clause asking for one value (a date, a name, an amount)
            // is answered by that value: no template aspects around it.
            let asks_value = clauses.len() == 1 && crate::answer::expected(&clauses[0]).is_span();
            if out.len() == 1 && !asks_value {
                match (kind, topic) {
                    (QuestionKind::WhatChanged, Some(t)) => {
                        out.push(format!("When the changes to {t} took effect"));
                        out.push(format!("{} before the change", capitalise(t)));
                        templated = true;
                    }
                    (QuestionKind::Statement, _) => {
                        if let Some(s) = speaker(&clauses[0]) {
                            out.push(format!("When and where {s} said it"));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    (out.into_iter().map(|a| label(&a)).collect(), templated)
}

/// The speaker of "What did X say ..." / "What has X said ...", when it is
/// a name (capitalised), not "reviewers" or "people".
fn speaker(clause: &str) -> Option<String> {
    let f = Folded::new(clause);
    let opener = ["what did ", "what has ", "what have ", "how did "]
        .iter()
        .find(|o| f.lower.starts_with(**o))?;
    let end = [" say", " said", " tell", " told", " respond", " announce"]
        .iter()
        .filter_map(|v| f.find_from(opener.len(), v))
        .min()?;
    let who = tidy(f.slice(opener.len(), end));
    let n = who.split_whitespace().count();
    let named = who.chars().next().is_some_and(char::is_uppercase);
    (named && (1..=5).contains(&n)).then_some(who)
}

/// "Which cities have adopted X" → "Evidence for each of the cities that
/// have adopted X"; None for a clause that asks for no list.
fn evidence_per_item(clause: &str) -> Option<String> {
    const LIST_OPENERS: &[&str] = &[
        "which ",
        "what are the main ",
        "what are the leading ",
        "what are the ",
        "who are the main ",
        "who are the leading ",
        "who are the ",
        "list the ",
        "list of ",
        "name the ",
    ];
    let f = Folded::new(clause);
    let opener = LIST_OPENERS.iter().find(|o| f.lower.starts_with(**o))?;
    let rest = tidy(f.slice(opener.len(), f.lower.len()));
    let mut words = rest.split_whitespace();
    let noun = words.next()?;
    // Plural nouns only ("which cities", not "which is").
    let lower = noun.to_lowercase();
    if !lower.ends_with('s') || lower.ends_with("ss") || lower.len() < 4 || lower == "does" {
        return None;
    }
    let tail: Vec<&str> = words.collect();
    let tail = tail.join(" ");
    Some(if tail.is_empty() {
        format!("Evidence for each of the {noun}")
    } else {
        format!("Evidence for each of the {noun} that {tail}")
    })
}

/// A list the question spells out after a cue ("check A, B and C").
fn enumerated(q: &str) -> Option<Vec<String>> {
    const CUES: &[&str] = &[
        ":",
        "check ",
        "checking ",
        "including ",
        "covering ",
        "such as ",
        "focus on ",
        "focusing on ",
        "especially ",
        "in terms of ",
        "look at ",
        "looking at ",
        "verify ",
        "assess ",
        "evaluate ",
    ];
    let f = Folded::new(q);
    // The longest list; of two as long, the later cue ("...: check a, b")
    // is the nearer one.
    let mut best: Option<(Vec<String>, usize)> = None;
    for cue in CUES {
        let Some(pos) = f.lower.find(cue) else {
            continue;
        };
        let tail = f.slice(pos + cue.len(), f.lower.len());
        let tail = tail.split(['?', '.', '\n']).next().unwrap_or(tail);
        let items = split_list(tail);
        let better = best
            .as_ref()
            .is_none_or(|(b, at)| items.len() > b.len() || (items.len() == b.len() && pos > *at));
        if items.len() >= 2 && better {
            best = Some((items, pos));
        }
    }
    best.map(|(items, _)| items)
}

/// Items of a list written in prose: "a, b and c", "a; b as well as c".
pub(crate) fn split_list(tail: &str) -> Vec<String> {
    let normalized = tail
        .replace(" and ", ",")
        .replace(" & ", ",")
        .replace(';', ",")
        .replace(" as well as ", ",");
    normalized
        .split(',')
        .map(|s| {
            let s = s.trim().trim_start_matches("and ").trim();
            let s = s
                .strip_prefix("its ")
                .or_else(|| s.strip_prefix("their "))
                .or_else(|| s.strip_prefix("the "))
                .unwrap_or(s);
            s.trim().to_string()
        })
        .filter(|s| !s.is_empty() && s.split_whitespace().count() <= 6)
        .collect()
}

/// Items and criteria of a comparison: "A vs B for C", "compare A and B on
/// C and D", "difference between A and B in C", "which is better, A or B".
/// One aspect per item and criterion (per item when there are no criteria),
/// plus their differences.
fn comparison(q: &str) -> Option<Vec<String>> {
    let (items, criteria, with_for) = comparison_parts(q)?;
    let mut out = Vec::new();
    let choice = asks_choice(q);
    // Room for one cell per item and criterion beside the differences
    // and the choice.
    let room = MAX_ASPECTS - 1 - usize::from(choice);
    if criteria.is_empty() || items.len() * criteria.len() > room {
        let what = if criteria.is_empty() {
            "strengths and weaknesses".to_string()
        } else {
            criteria.join(", ")
        };
        for i in &items {
            out.push(label(&format!("{i}: {what}")));
        }
    } else {
        for i in &items {
            for c in &criteria {
                out.push(label(&if with_for {
                    format!("{i} for {c}")
                } else {
                    format!("{i} {c}")
                }));
            }
        }
    }
    out.push(label(&format!(
        "Differences between {}",
        items.join(" and ")
    )));
    // "..., and which one should I use?" asks for a choice as well.
    if choice {
        out.push(label(&format!("Which to choose: {}", items.join(" or "))));
    }
    Some(out)
}

/// Whether a comparison also asks which item to pick: "which one should I
/// use", "which is better", "which do you recommend", "when should each be
/// used".
fn asks_choice(q: &str) -> bool {
    static CHOICE: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::re(
            r"(?i)\bwhich(?: one| of (?:them|the two|these))? (?:should|to|would|is (?:better|best|preferred|recommended)|do you recommend)\b|\bshould (?:i|we|you) (?:use|pick|choose|prefer)\b|\bwhen (?:should|to) (?:each|i|we|you)\b|\b(?:recommend|recommended|preferable)\b",
        )
    });
    CHOICE.is_match(q)
}

/// The items a comparison question compares ("Quillstore", "Brinewood");
/// empty when the question compares nothing.
pub fn comparison_items(question: &str) -> Vec<String> {
    comparison_parts(question.trim())
        .map(|(items, _, _)| items)
        .unwrap_or_default()
}

/// Where a question that opens with a choice ("A or B: ...", "A or B?
/// ...") ends its items: at its first colon or question mark, when the
/// words before it are a short "or" list with no question word.
fn leading_choice(lower: &str) -> Option<usize> {
    let p = lower.find([':', '?'])?;
    let head = &lower[..p];
    (head.contains(" or ") && head.split_whitespace().count() <= 8 && !asks(head)).then_some(p)
}

/// Whether a clause asks something: it has a question word or opens
/// with a verb that starts a question ("is it ...", "should I ...").
fn asks(clause: &str) -> bool {
    let lower = clause.to_lowercase();
    let mut words = lower.split_whitespace();
    let first = words.next().unwrap_or("");
    matches!(first, "is" | "are" | "does" | "do" | "should" | "can")
        || std::iter::once(first).chain(words).any(is_wh)
}

/// Items, criteria, and whether the criteria followed `for`.
fn comparison_parts(q: &str) -> Option<(Vec<String>, Vec<String>, bool)> {
    let f = Folded::new(q);
    let lower = &f.lower;
    // The span that names the items, as lowercase offsets.
    // "How do A and B compare on C": the items come before the verb.
    let verb_after = f.find_from(0, " compare").filter(|&p| {
        let after = lower[p + " compare".len()..].trim_start();
        after.is_empty()
            || [
                "on ",
                "in ",
                "for ",
                "with respect",
                "when it comes",
                "regarding",
                "?",
            ]
            .iter()
            .any(|m| after.starts_with(m))
    });
    let (start, items_end_hint) = if let Some(p) = verb_after {
        let opener = ["how do ", "how does ", "how would ", "how will ", "how "]
            .iter()
            .find(|o| lower.starts_with(**o))
            .map_or(0, |o| o.len());
        (opener, Some(p))
    } else if let Some(p) = ["compare ", "comparison of ", "comparing "]
        .iter()
        .find_map(|c| f.find_from(0, c).map(|p| p + c.len()))
    {
        (p, None)
    } else if let Some(p) = ["differences between ", "difference between "]
        .iter()
        .find_map(|c| f.find_from(0, c).map(|p| p + c.len()))
    {
        (p, None)
    } else if let Some(p) = [
        " vs. ",
        " vs ",
        " versus ",
        " compared to ",
        " compared with ",
    ]
    .iter()
    .find_map(|c| f.find_from(0, c))
    {
        // The item before the marker starts after the last clause break,
        // and after what is asked of it ("the pros and cons of X
        // compared with Y", "the speed of X vs Y").
        let before = &lower[..p];
        let s = before.rfind([',', ':', '?']).map(|i| i + 1).unwrap_or(0);
        let s = before[s..]
            .rfind(" of ")
            .map_or(s, |i| s + i + " of ".len());
        (s, None)
    } else if let Some(p) = lower.rfind(", ").filter(|&p| lower[p..].contains(" or ")) {
        (p + 2, None)
    } else if let Some(p) = leading_choice(lower) {
        // "json or jsonb: what is the difference?": the items open the
        // question, before its first break.
        (0, Some(p))
    } else {
        return None;
    };
    const CRITERIA: &[(&str, bool)] = &[
        (" in terms of ", false),
        (" when it comes to ", false),
        (" with respect to ", false),
        (" regarding ", false),
        (" on ", false),
        (" for ", true),
        (" in ", false),
        (":", false),
        ("?", false),
    ];
    let search_from = items_end_hint.unwrap_or(start);
    let mut crit_at = lower.len();
    let mut criteria: Vec<String> = Vec::new();
    let mut with_for = false;
    for (marker, is_for) in CRITERIA {
        if let Some(p) = f.find_from(search_from, marker)
            && p < crit_at
        {
            crit_at = p;
            let crit = f.slice(p + marker.len(), lower.len());
            let crit = crit.split(['?', '.', '\n']).next().unwrap_or(crit);
            // A clause that asks ("what is the difference", "how do they
            // differ") is the comparison itself, not an attribute of it.
            criteria = split_list(crit)
                .into_iter()
                .filter(|c| c.split_whitespace().count() <= 4 && !asks(c))
                .collect();
            with_for = *is_for;
        }
    }
    let items_end = items_end_hint.unwrap_or(crit_at);
    let span = f.slice(start, items_end);
    let span = span
        .replace(" vs. ", ",")
        .replace(" vs ", ",")
        .replace(" versus ", ",")
        .replace(" compared to ", ",")
        .replace(" compared with ", ",")
        .replace(" with ", ",")
        .replace(" or ", ",")
        .replace(" and ", ",");
    let items: Vec<String> = span
        .split(',')
        .map(|s| {
            let s = tidy(s);
            s.strip_prefix("the ")
                .or_else(|| s.strip_prefix("The "))
                .unwrap_or(&s)
                .to_string()
        })
        .filter(|s| {
            let n = s.split_whitespace().count();
            (1..=5).contains(&n) && !has_word(s, "better") && !has_word(s, "which")
        })
        .collect();
    let mut items = items;
    if items.len() < 2 {
        return None;
    }
    // "A and B embedded databases": the shared noun belongs to both.
    let n = items.len();
    if items[..n - 1].iter().all(|i| !i.contains(' '))
        && let Some((head, noun)) = items[n - 1].split_once(' ')
        && !noun.chars().any(char::is_uppercase)
    {
        items[n - 1] = head.to_string();
    }
    Some((items, criteria, with_for))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aspects(q: &str, subject: Option<&str>) -> Vec<String> {
        decompose(q, subject).aspects
    }

    #[test]
    fn a_spelled_out_list_is_the_plan() {
        assert_eq!(
            aspects(
                "Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C startup today? Check leadership, licence status, funding, reliability, security incidents, pricing and merchant sentiment.",
                Some("PadmaPay"),
            ),
            vec![
                "leadership",
                "licence status",
                "funding",
                "reliability",
                "security incidents",
                "pricing",
                "merchant sentiment"
            ]
        );
    }

    #[test]
    fn a_question_opening_with_a_choice_names_its_items() {
        assert_eq!(
            comparison_items("json or jsonb: what is the difference?"),
            vec!["json", "jsonb"]
        );
        assert_eq!(
            comparison_items("Rustls or OpenSSL? Which should I link against"),
            vec!["Rustls", "OpenSSL"]
        );
        // A question word before the "or" is not a choice that opens it.
        assert!(comparison_items("Is it fast or slow: a review").is_empty());
        // The clause after the choice asks; it is no attribute of the items.
        let d = decompose("json or jsonb: what is the difference?", None);
        assert!(
            d.aspects.iter().all(|a| !a.contains("what is")),
            "{:?}",
            d.aspects
        );
    }

    #[test]
    fn due_diligence_without_a_list_gets_the_checklist() {
        let d = decompose("Is Acme a reliable vendor?", Some("Acme"));
        assert_eq!(d.kind, QuestionKind::DueDiligence);
        assert_eq!(d.aspects, DUE_DILIGENCE_CHECKLIST);
    }

    #[test]
    fn each_clause_of_a_compound_question_is_an_aspect() {
        let d = decompose(
            "What changed in version 3 of the Open Transit Feed standard, when did it take effect, what must publishers change, and which cities have adopted it?",
            Some("Open Transit Feed"),
        );
        assert_eq!(d.kind, QuestionKind::WhatChanged);
        assert_eq!(
            d.topic.as_deref(),
            Some("version 3 of the Open Transit Feed standard")
        );
        assert_eq!(
            d.aspects,
            vec![
                "What changed in version 3 of the Open Transit Feed standard",
                "When did version 3 of the Open Transit Feed standard take effect",
                "What must publishers change",
                "Which cities have adopted version 3 of the Open Transit Feed standard",
                "Evidence for each of the cities that have adopted version 3 of the Open Transit Feed standard",
            ]
        );
    }

    #[test]
    fn how_it_works_gets_mechanism_and_template_parts_only_for_an_overview() {
        let d = decompose(
            "What is Firefox Reader View and how does it work?",
            Some("Firefox Reader View"),
        );
        assert_eq!(d.kind, QuestionKind::HowItWorks);
        assert_eq!(
            d.aspects,
            vec![
                "What Firefox Reader View is",
                "How Firefox Reader View works"
            ]
        );
        let d = decompose(
            "How does Firefox Reader View work, in detail?",
            Some("Firefox Reader View"),
        );
        assert!(
            d.aspects.iter().any(|a| a.starts_with("Components of")),
            "{:?}",
            d.aspects
        );
        // A question asking more than the mechanism is planned by its clauses.
        let d = decompose(
            "How does write-ahead logging work in SQLite, and when does it checkpoint?",
            None,
        );
        assert_eq!(
            d.aspects,
            vec![
                "How does write-ahead logging work in SQLite",
                "When does write-ahead logging checkpoint"
            ],
        );
    }

    #[test]
    fn which_one_is_led_by_the_name_it_picks_from() {
        assert_eq!(
            aspects(
                "What can I pass to WITH QUOKKA in Zarbase, and which one applies if I don't say?",
                None
            ),
            [
                "What can I pass to WITH QUOKKA in Zarbase",
                "WITH QUOKKA: which one applies if I don't say"
            ]
        );
        // A clause naming its own thing, or with nothing named before, or
        // not asking "which one", stays; one ending at "which one" is led.
        for (clause, before, led) in [
            (
                "which one does Zarbase pick",
                "What modes exist",
                "which one does Zarbase pick",
            ),
            (
                "which one is cheaper",
                "what do the plans cost",
                "which one is cheaper",
            ),
            (
                "which one",
                "What do Zarbase plans cost",
                "Zarbase: which one",
            ),
            (
                "which oneself",
                "What do Zarbase plans cost",
                "which oneself",
            ),
            // "Which is" picks from the things the clause before asks for.
            (
                "which is the default",
                "Which storage tiers are there",
                "storage tiers: which is the default",
            ),
            (
                "which is the default",
                "What do the plans cost",
                "which is the default",
            ),
        ] {
            assert_eq!(name_which_one(clause, &[before.into()]), led);
        }
    }

    #[test]
    fn one_after_an_auxiliary_stands_for_the_indefinite_phrase_before_it() {
        assert_eq!(
            aspects(
                "What is the largest number a bigint can hold, and how much space does one take?",
                None
            ),
            [
                "What is the largest number a bigint can hold",
                "How much space does a bigint take"
            ]
        );
        // "one" as a number, or with nothing to stand for, stays.
        assert_eq!(
            resolve_one("which one is cheaper", &["What do the plans cost".into()]),
            "which one is cheaper"
        );
    }

    #[test]
    fn statements_keep_the_speaker() {
        let d = decompose(
            "What did President Obama say about US gun laws in his BBC interview?",
            Some("President Obama"),
        );
        assert_eq!(d.kind, QuestionKind::Statement);
        assert_eq!(
            d.aspects[0],
            "What did President Obama say about US gun laws in his BBC interview"
        );
        assert_eq!(d.aspects[1], "When and where President Obama said it");
        // "reviewers" is no name: no aspect about when they said it.
        assert_eq!(
            aspects(
                "What did reviewers say about the Aurelle H7 headphones?",
                None
            ),
            vec!["What did reviewers say about the Aurelle H7 headphones"]
        );
    }

    #[test]
    fn a_comparison_that_asks_which_to_pick_gets_that_sub_question() {
        assert_eq!(
            aspects(
                "Lark or Wren: how do they differ, and which one should I use?",
                None
            ),
            vec![
                "Lark: strengths and weaknesses",
                "Wren: strengths and weaknesses",
                "Differences between Lark and Wren",
                "Which to choose: Lark or Wren",
            ]
        );
        assert!(
            aspects("Which is better for logging, Lark or Wren?", None)
                .last()
                .is_some_and(|a| a == "Which to choose: Lark or Wren")
        );
        // Asking only how they differ asks for no choice.
        assert!(
            !aspects("How do Lark and Wren differ?", None)
                .iter()
                .any(|a| a.starts_with("Which to choose"))
        );
    }

    #[test]
    fn comparisons_split_by_item_and_criterion() {
        assert_eq!(
            aspects("Compare WireGuard and OpenVPN on speed and security", None),
            vec![
                "WireGuard speed",
                "WireGuard security",
                "OpenVPN speed",
                "OpenVPN security",
                "Differences between WireGuard and OpenVPN",
            ]
        );
        assert_eq!(
            aspects("Postgres vs MySQL for analytics?", None),
            vec![
                "Postgres for analytics",
                "MySQL for analytics",
                "Differences between Postgres and MySQL"
            ]
        );
        assert_eq!(
            aspects("What is the difference between TCP and UDP?", None),
            vec![
                "TCP: strengths and weaknesses",
                "UDP: strengths and weaknesses",
                "Differences between TCP and UDP"
            ]
        );
    }

    #[test]
    fn what_is_asked_of_an_item_is_not_the_item() {
        assert_eq!(
            comparison_items(
                "What are the pros and cons of Kestrel mode compared with the Osprey journal?"
            ),
            ["Kestrel mode", "Osprey journal"]
        );
    }

    #[test]
    fn items_before_the_verb_and_a_shared_noun() {
        let a = aspects(
            "How do the Quillstore and Brinewood embedded databases compare on licence, replication, maximum value size and write throughput?",
            None,
        );
        assert_eq!(
            &a[..4],
            [
                "Quillstore licence",
                "Quillstore replication",
                "Quillstore maximum value size",
                "Quillstore write throughput"
            ]
        );
        assert_eq!(a.len(), 9, "{a:?}");
        assert_eq!(a[8], "Differences between Quillstore and Brinewood");
    }

    #[test]
    fn a_list_of_events_is_one_aspect_per_event() {
        let d = decompose(
            "When was the Lanholm congestion charge proposed, passed, amended and brought into force, and what is the daily charge today?",
            Some("Lanholm"),
        );
        assert_eq!(d.kind, QuestionKind::WhatChanged);
        assert_eq!(
            d.aspects,
            vec![
                "When was the Lanholm congestion charge proposed",
                "When was the Lanholm congestion charge passed",
                "When was the Lanholm congestion charge amended",
                "When was the Lanholm congestion charge brought into force",
                "What is the daily charge today",
            ]
        );
    }

    #[test]
    fn a_how_question_with_its_own_clauses_keeps_them() {
        let a = aspects(
            "How does Calm Read, the reading mode of the Pelican browser, pick the article text on a page, what does it strip out, when does it refuse to offer reading mode, and which Pelican version introduced the current algorithm?",
            Some("Calm Read"),
        );
        assert_eq!(
            a,
            vec![
                "How does Calm Read pick the article text on a page",
                "What does Calm Read strip out",
                "When does Calm Read refuse to offer reading mode",
                "Which Pelican version introduced the current algorithm",
            ]
        );
    }

    #[test]
    fn landscapes_ask_for_the_list_and_evidence_per_item() {
        assert_eq!(
            aspects("Which companies make solid-state batteries?", None),
            vec![
                "Which companies make solid-state batteries",
                "Evidence for each of the companies that make solid-state batteries"
            ]
        );
    }

    #[test]
    fn open_questions_keep_their_names() {
        assert_eq!(
            aspects("Who runs Acme Corp?", Some("Acme Corp")),
            vec!["Who runs Acme Corp"]
        );
    }

    #[test]
    fn a_cue_after_a_length_changing_capital_does_not_panic() {
        // `İ` lowercases to three bytes: slicing the original at the
        // lowercase offset used to panic.
        let a = aspects("İİİİ İSTANBUL: check ports, rail and roads", None);
        assert_eq!(a, vec!["ports", "rail", "roads"]);
    }

    #[test]
    fn plans_that_restate_a_compound_question_are_named() {
        let q = "What is Firefox Reader View and how does it work?";
        let p = plan_problems(q, None, &[q]);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("one todo"), "{p:?}");
        let long = "Find out everything about the history and the design and the code and the people and the users of the feature";
        let p = plan_problems(q, None, &["What it is", long]);
        assert!(p[0].contains("todo 2 is"), "{p:?}");
        assert!(plan_problems(q, None, &["What it is", "How it works"]).is_empty());
        assert!(plan_problems("Who runs Acme?", None, &["Who runs Acme"]).is_empty());
        // One narrow todo is a choice, not a restatement.
        assert!(plan_problems(q, None, &["Reader View parser"]).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn plan_checks_never_panic(q in "\\PC{0,120}", t in proptest::collection::vec("\\PC{0,60}", 0..4)) {
            let todos: Vec<&str> = t.iter().map(String::as_str).collect();
            let _ = plan_problems(&q, None, &todos);
        }

        #[test]
        fn any_question_decomposes(q in "\\PC{0,200}") {
            let d = decompose(&q, None);
            proptest::prop_assert!(!d.aspects.is_empty() && d.aspects.len() <= MAX_ASPECTS);
            for a in &d.aspects {
                proptest::prop_assert!(!a.trim().is_empty());
            }
        }

        #[test]
        fn tricky_unicode_questions_decompose(
            q in "([İıßẞΣς\u{301}\u{5d0}-\u{5ea}\u{627}-\u{64a}\u{202e}KÅ]|what |how |does |it |compare | vs | and |, |: |check |which |cities |\\?){0,40}",
            subject in proptest::option::of("[İßA-Za-z\u{301} ]{0,12}"),
        ) {
            let d = decompose(&q, subject.as_deref());
            proptest::prop_assert!(!d.aspects.is_empty());
            for a in &d.aspects {
                proptest::prop_assert!(a.chars().count() <= MAX_LABEL + 40);
            }
        }
    }
}
