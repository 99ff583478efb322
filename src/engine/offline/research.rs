//! The sub-researcher's turns: search, read, read on, search again from
//! another angle, then submit the best verbatim sentences.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::lexicon::{expansion_words, pros_and_cons_words};
use super::pages::PageRead;
use super::score::{Candidate, Target, explains, extract};
use super::transcript::{PastCall, Transcript, anchors_of, field, unwrap_spotlight};
use super::{FETCH_PER_SEARCH, MAX_READS_PER_PAGE};
use crate::engine::page_view;
use crate::engine::subresearcher::aspect_of;
use crate::engine::tool::names::{FETCH_URL, READ_SOURCE, SUBMIT_FINDINGS, WEB_SEARCH};
use crate::question::{self, QuestionKind};

pub(super) fn researcher_turn(t: &Transcript) -> (String, Vec<(&'static str, Value)>) {
    let aspect = aspect_of(t.user);
    let anchors = anchors_of(t.user);
    let entity = anchors.name.clone().unwrap_or_default();

    let Read {
        pages,
        order,
        attempted,
    } = Read::of(t);

    // 1. Read on where a page was cut.
    let reads: Vec<(&'static str, Value)> = order
        .iter()
        .filter_map(|u| {
            let p = &pages[u];
            let off = p.next_offset?;
            (p.reads < MAX_READS_PER_PAGE).then(|| (READ_SOURCE, json!({"url": u, "offset": off})))
        })
        .collect();
    if !reads.is_empty() {
        return (
            format!("Reading further into {} long page(s).", reads.len()),
            reads,
        );
    }

    let searches: Vec<&PastCall> = t.called(WEB_SEARCH).collect();
    // Short and specific: the subject and the aspect's key terms. In a
    // comparison each aspect names its own item, so no subject is added.
    let question = field(t.user, crate::engine::prompts::label::QUESTION).unwrap_or("");
    let kind = question::classify(question);
    let subject =
        (!entity.is_empty() && kind != QuestionKind::Comparison).then_some(entity.as_str());
    // The thesaurus is the vocabulary of company facts; other kinds of
    // question find theirs in the pages read.
    let thesaurus = matches!(kind, QuestionKind::DueDiligence | QuestionKind::Open);
    // The question's topic, which labels of its clauses repeat.
    let topic = question::decompose(question, subject).topic;
    let first_query = question::search_query(&aspect, subject, topic.as_deref());
    if searches.is_empty() {
        return (
            format!("Searching for {aspect}."),
            vec![(WEB_SEARCH, json!({"query": first_query, "max_results": 6}))],
        );
    }

    // 2. Fetch the top results of the latest search not read yet.
    if let Some(turn) = searches
        .last()
        .and_then(|latest| fetch_results(latest, &attempted))
    {
        return turn;
    }

    // In a comparison, the item an aspect is about is its subject.
    let item = (kind == QuestionKind::Comparison)
        .then(|| {
            question::comparison_items(question)
                .into_iter()
                .find(|i| aspect.to_lowercase().starts_with(&i.to_lowercase()))
        })
        .flatten();
    // The run's date from the opening message; a caller that sends none
    // (not the engine) gets the real date.
    let today = field(t.user, crate::engine::prompts::label::TODAY)
        .map(String::from)
        .unwrap_or_else(|| chrono::Utc::now().format("%Y-%m-%d").to_string());
    let target = Target {
        aspect: &aspect,
        question,
        entity: &entity,
        today: &today,
    };
    let findings = match &item {
        Some(i) => extract(
            &Target {
                entity: i,
                ..target
            },
            &order,
            &pages,
            thesaurus,
            true,
        ),
        None => extract(&target, &order, &pages, thesaurus, false),
    };

    // 3. One more search from another angle: the words sources use for the aspect.
    if searches.len() == 1 {
        let extra = if thesaurus {
            expansion_words(&aspect)
        } else {
            pros_and_cons_words(&aspect)
        };
        // The thesaurus knows the words sources use for diligence aspects;
        // otherwise the words of the pages read so far give the second phrasing.
        // An aspect asking for what holds now ("the current algorithm")
        // searches again in the words of its best sentences so far: the
        // newest page may name the thing ("density scorer") and not the ask.
        let current = super::score::asks_current(&aspect) && !findings.is_empty();
        let query = if extra.is_empty() {
            let texts: Vec<&str> = if current {
                findings.iter().map(|f| f.sentence.as_str()).collect()
            } else {
                order.iter().map(|u| pages[u].text.as_str()).collect()
            };
            question::refined_query(&aspect, subject, topic.as_deref(), &texts)
                .unwrap_or_else(|| first_query.clone())
        } else {
            // The thesaurus words are alternatives: any of them will do.
            format!("{first_query} OR {}", extra.join(" OR "))
        };
        // A date may have moved: the first results can all repeat the
        // final one while the page naming the earlier plan words it
        // otherwise ("planned to start on" for "brought into force").
        let dated = crate::answer::expected(&aspect).is_date();
        if (!extra.is_empty() || findings.len() < 3 || current || dated) && query != first_query {
            return (
                format!(
                    "{} finding(s) so far; searching again from another angle.",
                    findings.len()
                ),
                vec![(WEB_SEARCH, json!({"query": query.trim(), "max_results": 8}))],
            );
        }
    }

    // 4. Submit, dropping what a bounce named.
    let asked = Asked {
        aspect: &aspect,
        question,
        subject: item.as_deref().unwrap_or(&entity),
    };
    submit(t, &asked, &order, &pages, findings)
}

/// What a sub-researcher read so far: each page's text per URL (pages read
/// on are one text), the URLs in order of first fetch, and every URL tried.
struct Read {
    pages: BTreeMap<String, PageRead>,
    order: Vec<String>,
    attempted: BTreeSet<String>,
}

impl Read {
    fn of(t: &Transcript) -> Self {
        let mut pages: BTreeMap<String, PageRead> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut attempted: BTreeSet<String> = BTreeSet::new();
        for c in &t.calls {
            if c.name != FETCH_URL && c.name != READ_SOURCE {
                continue;
            }
            let Some(url) = c.args.get("url").and_then(Value::as_str) else {
                continue;
            };
            attempted.insert(url.to_string());
            // Accepted pages come as a plain-text view; refusals do not parse.
            let Some(v) = c.result.and_then(|r| page_view::parse(unwrap_spotlight(r))) else {
                continue;
            };
            let real_url = if v.url.is_empty() {
                url.to_string()
            } else {
                v.url.clone()
            };
            attempted.insert(real_url.clone());
            if !pages.contains_key(&real_url) {
                order.push(real_url.clone());
            }
            let p = pages.entry(real_url).or_default();
            p.number = v.number;
            p.title = v.title;
            p.source_type = v.source_type;
            p.as_of = v.updated.or(v.published);
            if !p.text.is_empty() {
                p.text.push('\n');
            }
            p.text.push_str(&v.text);
            p.next_offset = v.next_offset;
            if c.name == READ_SOURCE {
                p.reads += 1;
            }
        }
        Read {
            pages,
            order,
            attempted,
        }
    }
}

/// The turn reading the top results of a search not read yet, if any.
fn fetch_results(
    latest: &PastCall,
    attempted: &BTreeSet<String>,
) -> Option<(String, Vec<(&'static str, Value)>)> {
    let urls: Vec<String> = latest
        .result
        .and_then(|r| serde_json::from_str::<Value>(unwrap_spotlight(r)).ok())
        .and_then(|v| v.get("results").cloned())
        .and_then(|r| r.as_array().cloned())
        .unwrap_or_default()
        .iter()
        // Lessons from earlier runs: known-bad domains are not read again.
        .filter(|r| r.get("known_bad").is_none())
        .filter_map(|r| r.get("url").and_then(Value::as_str).map(String::from))
        .filter(|u| !attempted.contains(u))
        .take(FETCH_PER_SEARCH)
        .collect();
    if urls.is_empty() {
        return None;
    }
    let n = urls.len();
    Some((
        format!("Reading {n} page(s) from the search results."),
        urls.into_iter()
            .map(|u| (FETCH_URL, json!({"url": u})))
            .collect(),
    ))
}

/// What one sub-researcher was asked.
struct Asked<'a> {
    aspect: &'a str,
    question: &'a str,
    /// The subject its pages are about (the item, in a comparison).
    subject: &'a str,
}

/// Whether a sub-question sets a comparison's items against each other
/// and asks for no value ("Differences between A and B", "Which to choose:
/// A or B"; not one item's cell, "A: licence"): its best sentences answer
/// it, as an explanation's do.
fn contrasts(asked: &Asked<'_>) -> bool {
    if question::classify(asked.question) != QuestionKind::Comparison
        || crate::answer::expected(asked.aspect).is_span()
    {
        return false;
    }
    // Longest first, each taken out once found: "A" inside "A B" is not
    // a second item.
    let mut aspect = asked.aspect.to_lowercase();
    let mut items: Vec<String> = question::comparison_items(asked.question)
        .iter()
        .map(|i| i.to_lowercase())
        .collect();
    items.sort_by_key(|i| std::cmp::Reverse(i.len()));
    let mut named = 0;
    for i in items.iter().filter(|i| !i.is_empty()) {
        if aspect.contains(i.as_str()) {
            aspect = aspect.replacen(i.as_str(), " ", 1);
            named += 1;
        }
    }
    named >= 2
}

/// The closing turn: the findings (for a sub-question asking for a value,
/// the sentences stating the value most sources give), less what a bounce
/// named, with the answer.
fn submit(
    t: &Transcript,
    asked: &Asked<'_>,
    order: &[String],
    pages: &BTreeMap<String, PageRead>,
    findings: Vec<Candidate>,
) -> (String, Vec<(&'static str, Value)>) {
    let aspect = asked.aspect;
    let bounced: BTreeSet<usize> = t
        .called(SUBMIT_FINDINGS)
        .last()
        .and_then(|c| c.result)
        .map(|r| {
            r.lines()
                .filter_map(|l| l.trim_start_matches("- ").strip_prefix("finding "))
                .filter_map(|l| l.split(':').next()?.trim().parse().ok())
                .collect()
        })
        .unwrap_or_default();
    // A sub-question asking for a value: the value most sources state,
    // its sentences first.
    let picked = super::vote::pick(aspect, asked.question, asked.subject, order, pages);
    // Its evidence is the sentences that state the answer and those that
    // state a rival value (a sentence of the answer may state both, "rises
    // from £6 to £7.50": it is listed once per value), each with the value
    // it states: other sentences about the aspect are other facts, not
    // rival answers.
    let findings: Vec<(Candidate, Option<&str>)> = match picked.as_ref().filter(|p| p.answered) {
        Some(p) => p
            .supports
            .iter()
            .map(|c| (c.clone(), p.value.as_deref()))
            .chain(p.rivals.iter().map(|(c, v)| (c.clone(), Some(v.as_str()))))
            .collect(),
        None => findings.into_iter().map(|c| (c, None)).collect(),
    };
    let kept: Vec<&(Candidate, Option<&str>)> = findings
        .iter()
        .enumerate()
        .filter(|(i, _)| !bounced.contains(&(i + 1)))
        .map(|(_, f)| f)
        .collect();
    let mut gaps = Vec::new();
    if kept.is_empty() {
        gaps.push(format!(
            "no sentence about {aspect} was found in the {} page(s) read",
            order.len()
        ));
    }
    let list: Vec<Value> = kept
        .iter()
        .map(|(f, value)| {
            let mut finding = json!({
                "claim": f.sentence,
                "quote": f.sentence,
                "url": f.url,
                "field": aspect,
                "as_of": f.as_of,
            });
            if let Some(v) = value {
                finding["value"] = json!(v);
            }
            finding
        })
        .collect();
    let summary = if kept.is_empty() {
        format!("Nothing verifiable found on {aspect}.")
    } else {
        format!(
            "{} verbatim finding(s) on {aspect} from {} page(s).",
            kept.len(),
            order.len()
        )
    };
    let mut args = json!({"summary": summary, "findings": list, "gaps": gaps});
    if let Some(p) = &picked {
        args["answered"] = json!(p.answered);
        if p.value.is_some() || !p.answered {
            args["answer"] = json!(p.value.clone().unwrap_or_default());
        }
    } else if !kept.is_empty() && (explains(aspect) || contrasts(asked)) {
        // A question answered in sentences (how, why, what is, which
        // ones), or a comparison's contrast of its items asking for no
        // value: the best sentences found are its answer.
        args["answered"] = json!(true);
    }
    (summary.clone(), vec![(SUBMIT_FINDINGS, args)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contrasts_in(question: &str, aspect: &str) -> bool {
        contrasts(&Asked {
            aspect,
            question,
            subject: "",
        })
    }

    #[test]
    fn a_contrast_of_the_items_is_answered_in_sentences_and_a_cell_is_not() {
        let q = "FTS3 or FTS4: how do they differ, and which one should I use?";
        assert!(contrasts_in(q, "Differences between FTS3 and FTS4"));
        assert!(contrasts_in(q, "Which to choose: FTS3 or FTS4"));
        assert!(!contrasts_in(q, "FTS3: strengths and weaknesses"));
        let q = "Is there any real difference between INTEGER PRIMARY KEY and INTEGER PRIMARY KEY AUTOINCREMENT in SQLite?";
        // One item's name inside the other's is not a second item.
        assert!(!contrasts_in(q, "INTEGER PRIMARY KEY AUTOINCREMENT SQLite"));
        assert!(contrasts_in(
            q,
            "Differences between INTEGER PRIMARY KEY and INTEGER PRIMARY KEY AUTOINCREMENT"
        ));
        // Not a comparison: no contrast.
        assert!(!contrasts_in(
            "How does write-ahead logging work in SQLite?",
            "How does write-ahead logging work in SQLite"
        ));
    }
}
