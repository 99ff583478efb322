//! Composing reports: an extractive draft from findings (the offline model
//! and salvaged reports use it) and the final assembly every report goes
//! through (scrub, renumber by first citation, security notes, sources).

use std::collections::BTreeSet;

use serde::Serialize;

use chrono::NaiveDate;

use super::answers::capitalize;
use super::claim_check::facts;
use super::evidence_view::{FieldView, ValueView};
use super::quoting::quoted;
use super::{citations, hygiene};
use crate::answer::vote::ENDED_MARKERS as PAST_MARKERS;
use crate::evidence::fields::{Field, FieldKeys};
use crate::evidence::{Finding, Findings};
use crate::evidence::{Page, SourceType, values};
use crate::protocol::Verdict;
use crate::question::QuestionKind;

/// One entry of sources.json; `index` is the `[n]` in report.md.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct SourceEntry {
    pub index: usize,
    pub url: String,
    pub title: String,
    pub domain: String,
    pub source_type: SourceType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    pub retrieved: String,
    /// Authors the page names (front matter, JSON-LD, meta tags).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// The publisher the page names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publisher: Option<String>,
}

#[derive(Debug, Clone)]
pub struct FinalReport {
    pub markdown: String,
    pub sources: Vec<SourceEntry>,
    /// What the scrub removed.
    pub scrubbed: Vec<String>,
}

/// The answer line is chosen among this many best-ranked findings.
const ANSWER_CANDIDATES: usize = 3;

/// When a finding's fact happened: the latest year it names, if that is
/// before the page's date; else the page's date.
fn event_key(f: &Finding) -> String {
    let as_of = f.as_of.clone().unwrap_or_default();
    let latest_year = f
        .quote
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| w.len() == 4)
        .filter_map(|w| w.parse::<u32>().ok())
        .filter(|y| (1990..=2100).contains(y))
        .max();
    match (
        latest_year,
        as_of.get(..4).and_then(|y| y.parse::<u32>().ok()),
    ) {
        (Some(y), Some(page_year)) if y < page_year => format!("{y}-12-31"),
        _ => as_of,
    }
}

/// The finding that best states the current position: the latest event, and
/// among equals one not phrased in the past tense; ties keep the ranking.
fn most_current(findings: &[Finding]) -> &Finding {
    let past = |f: &Finding| {
        let q = format!(" {} ", f.quote.to_lowercase());
        PAST_MARKERS.iter().any(|m| q.contains(m))
    };
    let mut best = &findings[0];
    for f in findings.iter().take(ANSWER_CANDIDATES).skip(1) {
        // A sentence in the present tense beats one about the past; then the later event wins.
        if (!past(f), event_key(f)) > (!past(best), event_key(best)) {
            best = f;
        }
    }
    best
}

/// An extractive report from the sub-researchers' findings and the merged
/// evidence (see [`draft_on`]), dated today.
pub fn draft_from_merged(
    question: &str,
    entity: Option<&str>,
    units: &[Findings],
    merged: &[FieldView],
) -> String {
    draft_on(
        question,
        entity,
        units,
        merged,
        chrono::Utc::now().date_naive(),
    )
}

/// The date a quote carries everywhere in a report: what the sentence
/// itself says (see [`values::sentence_date`]), else the date it was given
/// (the page's). The merge dates its supports the same way.
fn quote_date(quote: &str, given: Option<&str>, today: NaiveDate) -> Option<String> {
    values::sentence_date(quote, today)
        .map(|d| d.to_string())
        .or_else(|| given.map(str::to_string))
}

/// One aspect of the plan and what is known of it.
struct Aspect<'a> {
    label: String,
    unit: &'a Findings,
    view: Option<&'a FieldView>,
    /// Sub-topics of its field ("international" fees beside domestic ones).
    scoped: Vec<&'a FieldView>,
    /// A finding of its own that answers it better than the merged value
    /// (see [`better_finding`]).
    pick: Option<&'a Finding>,
}

/// An extractive report: the Answer (a lead of the strongest verified
/// findings, each quoted and cited, fitted to the kind of question, then
/// one line per aspect with its merged value, confidence and date), the
/// sections the kind of question asks for (a timeline, a comparison table),
/// the findings per aspect, history, conflicts and gaps.
pub fn draft_on(
    question: &str,
    entity: Option<&str>,
    units: &[Findings],
    merged: &[FieldView],
    today: NaiveDate,
) -> String {
    let kind = crate::question::classify(question);
    let aspects = aspects_of(units, merged);
    let date_of = |quote: &str, given: Option<&str>| quote_date(quote, given, today);

    let mut md = String::new();
    let title = entity
        .map(|e| format!("{e}: research report"))
        .unwrap_or_else(|| "Research report".into());
    md.push_str(&format!(
        "# {title}\n\n**Question:** {}\n\n",
        question.trim()
    ));
    // Each aspect's findings as the Answer orders them: which aspect a
    // shared quote belongs to is decided on them, for the Answer and the
    // Evidence alike.
    let led: Vec<Findings> = aspects.iter().map(led_by_the_strongest).collect();
    let led: Vec<&Findings> = led.iter().collect();
    let (answer, not_said) = answer_section(kind, &aspects, &led, merged, &date_of);
    md.push_str(&answer);
    match kind {
        QuestionKind::WhatChanged => md.push_str(&timeline(&aspects, today)),
        QuestionKind::Comparison => md.push_str(&comparison(question, &aspects, &date_of)),
        _ => {}
    }
    md.push_str(&disagreements_section(&aspects, &date_of));
    md.push_str(&not_said_section(&aspects, &not_said));
    md.push_str(&evidence_section(&aspects, &led, &date_of));
    md.push_str(&history_section(&aspects));
    md
}

/// Whether a merged value is a whole sentence, not a value of a kind (a
/// name, an amount, a date): its rivals are other facts about the aspect,
/// not other answers, so nothing disagrees and nothing is uncertain.
fn is_sentence_value(v: &FieldView) -> bool {
    quotes_key(&v.value) == quotes_key(&v.quote) || v.value.split_whitespace().count() > 12
}

/// How many independent sources stand behind a merged value, in words.
fn agreement(v: &FieldView) -> Option<String> {
    if v.uncertain && !v.conflicts.is_empty() {
        Some("the sources disagree: see below".into())
    } else if v.agreeing >= 2 {
        Some(format!("{} independent sources agree", v.agreeing))
    } else if v.uncertain {
        Some("one source only".into())
    } else {
        None
    }
}

/// The plan's aspects, one per sub-researcher: its label, its merged field
/// and the sub-topics of that field, and the finding of its own that
/// answers it better, if one does.
fn aspects_of<'a>(units: &'a [Findings], merged: &'a [FieldView]) -> Vec<Aspect<'a>> {
    let aspect_of = |u: &Findings| {
        if u.aspect.is_empty() {
            u.unit.clone()
        } else {
            u.aspect.clone()
        }
    };
    let labels: Vec<String> = units.iter().map(aspect_of).collect();
    let keys = FieldKeys::new(&labels);
    let key_of = |v: &FieldView| {
        if v.key.is_empty() {
            v.field.clone()
        } else {
            v.key.clone()
        }
    };
    let mut aspects: Vec<Aspect> = units
        .iter()
        .zip(&labels)
        .map(|(unit, label)| {
            let key = keys.key_for(label, "").key;
            let prefix = format!("{key}:");
            Aspect {
                label: label.clone(),
                unit,
                view: merged.iter().find(|v| key_of(v) == key),
                scoped: merged
                    .iter()
                    .filter(|v| key_of(v).starts_with(&prefix))
                    .collect(),
                pick: None,
            }
        })
        .collect();
    let picks: Vec<Option<&Finding>> = (0..aspects.len())
        .map(|i| better_finding(&aspects, i))
        .collect();
    for (a, p) in aspects.iter_mut().zip(picks) {
        a.pick = p;
    }
    aspects
}

/// An aspect's findings with the one the merge settled on first (its
/// better finding, or the merged value's quote) when the merge is sure of
/// it, for an answer in sentences: what several sources support leads, not
/// the first found. An uncertain merge keeps the research's order.
fn led_by_the_strongest(a: &Aspect) -> Findings {
    let mut unit = a.unit.clone();
    let lead = a
        .view
        .filter(|v| !v.uncertain)
        .map(|v| a.pick.map_or(v.quote.as_str(), |f| f.quote.as_str()));
    if unit.answer.is_none()
        && let Some(i) = lead.and_then(|q| unit.findings.iter().position(|f| f.quote == q))
    {
        let f = unit.findings.remove(i);
        unit.findings.insert(0, f);
    }
    unit
}

/// The Answer section (the direct answers to sub-questions, for due
/// diligence what is settled and what to check, then one line per other
/// aspect) and the lines saying what the sources do not say.
fn answer_section(
    kind: QuestionKind,
    aspects: &[Aspect],
    led: &[&Findings],
    merged: &[FieldView],
    date_of: &dyn Fn(&str, Option<&str>) -> Option<String>,
) -> (String, Vec<String>) {
    let mut md = String::from("## Answer\n\n");
    // Sub-questions asking for a value are answered first, by the value.
    let direct_labels: Vec<String> = aspects.iter().map(|a| a.label.clone()).collect();
    let direct = super::answers::direct_answers(&direct_labels, led, aspects.len() == 1);
    md.push_str(&direct.answers);
    let answered = aspects
        .iter()
        .filter(|a| !a.unit.findings.is_empty())
        .count();
    if answered == 0 && merged.is_empty() && direct.answers.is_empty() {
        md.push_str("No verifiable evidence was found in the sources read.\n\n");
    } else if kind == QuestionKind::DueDiligence {
        md.push_str(&settled_and_to_check(aspects, date_of));
    }
    md.push_str(&aspect_lines(aspects, date_of));
    md.push('\n');
    (md, direct.not_said)
}

/// One line per aspect not answered directly: its merged value (see
/// [`merged_value_line`]) unless a finding of its own answers it better,
/// else that finding or its most current one; nothing for an aspect
/// without findings.
fn aspect_lines(
    aspects: &[Aspect],
    date_of: &dyn Fn(&str, Option<&str>) -> Option<String>,
) -> String {
    let mut md = String::new();
    for a in aspects
        .iter()
        .filter(|a| !super::answers::is_direct(a.unit))
    {
        let view = a.view.filter(|_| a.pick.is_none());
        if let Some(v) = view.filter(|v| !is_sentence_value(v)) {
            md.push_str(&merged_value_line(a, v));
        } else if !a.unit.findings.is_empty() {
            // An aspect answered in sentences: the one the merge or the
            // ranking settled on, then the next best that says something else.
            let first = a
                .pick
                .or_else(|| view.and_then(|v| a.unit.findings.iter().find(|f| f.quote == v.quote)))
                .unwrap_or_else(|| most_current(&a.unit.findings));
            let second = a
                .unit
                .findings
                .iter()
                .take(ANSWER_CANDIDATES)
                .find(|f| quotes_key(&f.quote) != quotes_key(&first.quote));
            md.push_str(&format!("- **{}**:", capitalize(&a.label)));
            for f in std::iter::once(first).chain(second) {
                md.push_str(&format!(" {} [{}]", quoted(&f.quote), f.source));
                if let Some(d) = date_of(&f.quote, f.as_of.as_deref()) {
                    md.push_str(&format!(" (as of {d})"));
                }
            }
            md.push('\n');
        }
    }
    md
}

/// An aspect's merged value: quoted, cited, with its confidence, date and
/// doubt, then one line per sub-topic of its field.
fn merged_value_line(a: &Aspect, v: &FieldView) -> String {
    let mut md = format!(
        "- **{}**: {} [{}]",
        capitalize(&a.label),
        quoted(&v.quote),
        v.source,
    );
    let notes: Vec<String> = v
        .as_of
        .iter()
        .map(|d| format!("as of {d}"))
        .chain(agreement(v))
        .collect();
    if !notes.is_empty() {
        md.push_str(&format!(" ({})", notes.join("; ")));
    }
    md.push('\n');
    for s in &a.scoped {
        md.push_str(&format!(
            "  - {}: {} [{}]",
            capitalize(scope_of(s)),
            quoted(&s.quote),
            s.source
        ));
        if let Some(d) = &s.as_of {
            md.push_str(&format!(" (as of {d})"));
        }
        md.push('\n');
    }
    md
}

/// The Evidence section: the findings of each aspect that has any, each
/// quote once (under the aspect that ranked it highest in `led`, the
/// Answer's order), with its kind of source and date.
fn evidence_section(
    aspects: &[Aspect],
    led: &[&Findings],
    date_of: &dyn Fn(&str, Option<&str>) -> Option<String>,
) -> String {
    let mut md = String::new();
    let owners = super::answers::quote_owners(led);
    let mut listed: BTreeSet<String> = BTreeSet::new();
    for (i, a) in aspects.iter().enumerate() {
        let fresh: Vec<&Finding> = a
            .unit
            .findings
            .iter()
            .filter(|f| owners.get(f.quote.as_str()) == Some(&i))
            .filter(|f| listed.insert(quotes_key(&f.quote)))
            .collect();
        if fresh.is_empty() {
            continue;
        }
        md.push_str(&format!("### {}\n\n", capitalize(&a.label)));
        for f in fresh {
            md.push_str(&format!("- {} [{}]", quoted(&f.quote), f.source));
            let mut meta = Vec::new();
            if let Some(t) = f.source_type.filter(|t| *t != SourceType::Other) {
                meta.push(t.as_str().replace('_', " "));
            }
            if let Some(d) = date_of(&f.quote, f.as_of.as_deref()) {
                meta.push(format!("as of {d}"));
            }
            if !meta.is_empty() {
                md.push_str(&format!(" ({})", meta.join(", ")));
            }
            md.push('\n');
        }
        md.push('\n');
    }
    if md.is_empty() {
        md
    } else {
        format!("## Evidence\n\n{md}")
    }
}

/// The History section (empty when no merged value has one): the earlier
/// values of each aspect's field.
fn history_section(aspects: &[Aspect]) -> String {
    let with_history: Vec<(&str, &FieldView)> = aspects
        .iter()
        .filter_map(|a| {
            a.view
                .filter(|v| !v.history.is_empty())
                .map(|v| (a.label.as_str(), v))
        })
        .collect();
    let mut md = String::new();
    if !with_history.is_empty() {
        md.push_str("## History\n\n");
        for (aspect, v) in &with_history {
            for h in &v.history {
                md.push_str(&format!(
                    "- **{}** (earlier): {} [{}]",
                    capitalize(aspect),
                    quoted(&h.quote),
                    h.source
                ));
                if let Some(d) = &h.as_of {
                    md.push_str(&format!(" (as of {d})"));
                }
                md.push('\n');
            }
        }
        md.push('\n');
    }
    md
}

/// Where the sources disagree (empty when they do not): per aspect whose
/// merged value has rivals of its own kind from the same time, the value
/// best supported and what the other sources say. Earlier values are
/// history, not disagreement; different sentences about an aspect are
/// different facts.
fn disagreements_section(
    aspects: &[Aspect],
    date_of: &dyn Fn(&str, Option<&str>) -> Option<String>,
) -> String {
    let mut md = String::new();
    for a in aspects {
        if super::answers::in_sentences(a.unit) {
            md.push_str(&measure_disagreement(a, date_of));
            continue;
        }
        let Some(v) = a.view else {
            continue;
        };
        // Rival values on the aspect's own topic. A typed field's values
        // were read as that field (a chief executive for "leadership");
        // for a plan aspect a sentence sharing none of its label's topic
        // words only names the subject: another fact, not a rival.
        let topic = aspect_terms(aspects, &a.label);
        let typed = v.field != Field::Other.as_str();
        let on_topic =
            |c: &&ValueView| typed || topic.is_empty() || relevance(&c.quote, &topic) > 0;
        // The answer the Answer section gives: the aspect's own better
        // finding when it has one, else the merged value.
        let (quote, source, as_of) = match a.pick {
            Some(f) => (&f.quote, f.source, date_of(&f.quote, f.as_of.as_deref())),
            None => (&v.quote, v.source, v.as_of.clone()),
        };
        // One source does not disagree with itself: two of its sentences
        // about a topic are two facts. Nor do two sentences about a topic
        // that no value answers disagree unless they give different numbers
        // of one measure: otherwise they tell different facts of it.
        let another_source = |c: &&ValueView| {
            typed
                || (c.source != source
                    && (a.unit.answer.is_some() || another_measure(quote, &c.quote)))
        };
        let mut rivals = String::new();
        for (kind, values) in [
            ("", &v.conflicts),
            ("outweighed: ", &v.rejected),
            ("earlier, true at its time: ", &v.history),
        ] {
            let shown = a.pick.map(|f| quotes_key(&f.quote));
            for c in values
                .iter()
                .filter(on_topic)
                .filter(another_source)
                .filter(|c| shown.as_deref() != Some(quotes_key(&c.quote).as_str()))
            {
                rivals.push_str(&rival_line(kind, &c.quote, c.source, c.as_of.as_deref()));
            }
        }
        if rivals.is_empty() {
            continue;
        }
        md.push_str(&disagreement_entry(
            &a.label,
            (quote, source, as_of),
            &rivals,
        ));
    }
    if md.is_empty() {
        md
    } else {
        format!("## Where the sources disagree\n\n{md}\n")
    }
}

/// The measures a sentence states: each number with the word it counts
/// ("500 characters" → ("charact", "500")), the word stemmed. Numbers
/// followed by no counted word ("from 300 to 500") are not measures.
fn measures(quote: &str) -> Vec<(String, String)> {
    let words = figure_words(quote);
    words
        .windows(2)
        .filter_map(|w| {
            let n = w[0].trim_end_matches([',', '.']);
            let counted = w[1].trim_end_matches([',', '.', '!', '?']).to_lowercase();
            let number = !n.is_empty()
                && n.chars().next().is_some_and(|c| c.is_ascii_digit())
                && n.chars()
                    .all(|c| c.is_ascii_digit() || c == ',' || c == '.');
            let word = counted
                .chars()
                .all(char::is_alphabetic)
                .then(|| facts::terms(&counted).into_iter().next())
                .flatten()?;
            number.then(|| (word, n.replace(',', "")))
        })
        .collect()
}

/// A quote's words as figures are read from it: split at spaces,
/// brackets, colons, semicolons and quotation marks.
fn figure_words(quote: &str) -> Vec<&str> {
    quote
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ';' | ':' | '"'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `theirs` gives another number of a measure `lead` states
/// ("300 characters" against "500 characters"), and not `lead`'s own.
fn gives_another_number(lead: &[(String, String)], theirs: &[(String, String)]) -> bool {
    lead.iter().any(|(unit, n)| {
        theirs.iter().any(|(u, m)| u == unit && m != n)
            && !theirs.iter().any(|(u, m)| u == unit && m == n)
    })
}

/// Whether `other` gives another number of a measure `quote` states
/// ("500 characters" against "300 characters"), or another number after
/// the same name ("Pelican 42" against "Pelican 38").
fn another_measure(quote: &str, other: &str) -> bool {
    let figures = |q: &str| {
        let mut f = measures(q);
        f.extend(named_numbers(q));
        f
    };
    gives_another_number(&figures(quote), &figures(other))
}

/// The numbers a sentence gives after a name ("Pelican 42", "version
/// 38"), each keyed by the name's stem and a `#` so that no measure
/// shares its key.
fn named_numbers(quote: &str) -> Vec<(String, String)> {
    let words = figure_words(quote);
    words
        .windows(2)
        .filter_map(|w| {
            let n = w[1].trim_end_matches([',', '.', '!', '?']);
            let number = !n.is_empty() && n.chars().all(|c| c.is_ascii_digit() || c == '.');
            let name = w[0].to_lowercase();
            let stem = name
                .chars()
                .all(char::is_alphabetic)
                .then(|| facts::terms(&name).into_iter().next())
                .flatten()?;
            number.then(|| (format!("{stem}#"), n.to_string()))
        })
        .collect()
}

/// For an aspect answered in sentences: the sentences giving another
/// number of the same measure as the answer's lead sentence ("at least 500
/// characters" against "at least 300 characters"), as a disagreement
/// entry; empty when they agree.
fn measure_disagreement(
    a: &Aspect,
    date_of: &dyn Fn(&str, Option<&str>) -> Option<String>,
) -> String {
    let findings = &a.unit.findings;
    let Some((lead, lead_measures)) = findings
        .iter()
        .map(|f| (f, measures(&f.quote)))
        .find(|(_, m)| !m.is_empty())
    else {
        return String::new();
    };
    let rivals: String = findings
        .iter()
        .filter(|f| quotes_key(&f.quote) != quotes_key(&lead.quote))
        .filter(|f| gives_another_number(&lead_measures, &measures(&f.quote)))
        .map(|f| {
            let as_of = date_of(&f.quote, f.as_of.as_deref());
            rival_line("", &f.quote, f.source, as_of.as_deref())
        })
        .collect();
    if rivals.is_empty() {
        return String::new();
    }
    let as_of = date_of(&lead.quote, lead.as_of.as_deref());
    disagreement_entry(&a.label, (&lead.quote, lead.source, as_of), &rivals)
}

/// " (as of DATE)", or nothing without a date.
fn as_of_note(as_of: Option<&str>) -> String {
    as_of.map(|d| format!(" (as of {d})")).unwrap_or_default()
}

/// One entry of Where the sources disagree: the best-supported quote
/// (quote, source number, date), then the `rivals` lines ([`rival_line`]).
fn disagreement_entry(label: &str, best: (&str, usize, Option<String>), rivals: &str) -> String {
    let (quote, source, as_of) = best;
    format!(
        "- **{}**: best supported: {} [{}]{}. Other sources say:\n{rivals}",
        capitalize(label),
        quoted(quote),
        source,
        as_of_note(as_of.as_deref())
    )
}

/// A rival under a disagreement entry, after its `kind` ("earlier, true at
/// its time: ", or "" for a plain rival).
fn rival_line(kind: &str, quote: &str, source: usize, as_of: Option<&str>) -> String {
    format!(
        "  - {kind}{} [{}]{}\n",
        quoted(quote),
        source,
        as_of_note(as_of)
    )
}

/// What the sources do not say (empty when they say everything asked):
/// the sub-questions no source answers, what each aspect's researcher
/// could not find, and the aspects with no verifiable evidence.
fn not_said_section(aspects: &[Aspect], not_said: &[String]) -> String {
    let mut lines: Vec<String> = not_said.to_vec();
    for a in aspects {
        lines.extend(
            a.unit
                .gaps
                .iter()
                .map(|g| format!("{}: {g}", capitalize(&a.label))),
        );
        let said_not_said = a.unit.answered == Some(false);
        if a.unit.findings.is_empty() && a.unit.gaps.is_empty() && !said_not_said {
            lines.push(format!(
                "{}: no verifiable evidence found in the sources read",
                capitalize(&a.label)
            ));
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    let mut md = String::from("## What the sources do not say\n\n");
    for l in lines {
        md.push_str(&format!("- {l}\n"));
    }
    md.push('\n');
    md
}

/// How many key terms of an aspect's label a quote carries (stemmed
/// content words, without those of half the labels or more: the subject's).
fn relevance(quote: &str, label_terms: &BTreeSet<String>) -> usize {
    let q: BTreeSet<String> = facts::terms(&facts::fold(quote)).into_iter().collect();
    q.intersection(label_terms).count()
}

/// A finding that answers a plan aspect better than the value its field
/// merged to. The merge ranks values by how reliable their sources are,
/// not by what they say, so the official page's strongest sentence can win
/// the field of every aspect it was found for ("500 characters" as the
/// answer to "how does it pick the text" and "what does it strip out").
/// Among the aspect's best-ranked findings, one carrying at least two more
/// of the label's key terms (those of fewer than half the labels) than the
/// merged value replaces it; failing that, a merged value shared with
/// another aspect yields to the first-ranked finding when that carries more
/// of them; failing
/// that, a merged value that is also another aspect's and more on-topic
/// there yields to this aspect's best-ranked finding. Due-diligence fields
/// have their own value keys and are left as merged.
/// The terms of an aspect's label that say what it is about: its content
/// words less those in at least half the labels, which name the subject.
fn aspect_terms(aspects: &[Aspect], label: &str) -> BTreeSet<String> {
    let terms_of = |label: &str| -> BTreeSet<String> {
        facts::terms(&facts::fold(label)).into_iter().collect()
    };
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for o in aspects {
        for t in terms_of(&o.label) {
            *counts.entry(t).or_default() += 1;
        }
    }
    terms_of(label)
        .into_iter()
        .filter(|t| aspects.len() <= 1 || 2 * counts.get(t).copied().unwrap_or(0) < aspects.len())
        .collect()
}

fn better_finding<'a>(aspects: &[Aspect<'a>], i: usize) -> Option<&'a Finding> {
    let a = &aspects[i];
    // Plan aspects: fields of their own, or aspects sharing a
    // due-diligence field under their own keys ("when was the charge
    // proposed" and "what is the daily charge" are both about a charge).
    let v = a
        .view
        .filter(|v| v.field == Field::Other.as_str() || v.key != v.field)?;
    let label_of = |a: &Aspect| aspect_terms(aspects, &a.label);
    let mine = label_of(a);
    let top: Vec<&Finding> = a.unit.findings.iter().take(ANSWER_CANDIDATES).collect();
    let first = *top.first()?;
    let own = relevance(&v.quote, &mine);
    // The first-ranked of the most on-topic findings.
    let mut best: Option<(&Finding, usize)> = None;
    for f in &top {
        let r = relevance(&f.quote, &mine);
        if best.is_none_or(|(_, br)| r > br) {
            best = Some((f, r));
        }
    }
    if let Some((f, r)) = best
        && r >= own + 2
    {
        return Some(f);
    }
    let key = quotes_key(&v.quote);
    // A value the merge gave to several aspects is the sources' strongest
    // sentence, not the answer to each ("passed on 22 October" for "when
    // was it proposed"): the aspect's first-ranked finding, when more
    // on-topic, answers it. The merge weighs sources, the ranking weighed
    // what the sentence answers.
    let shared_value = aspects
        .iter()
        .enumerate()
        .any(|(j, o)| j != i && o.view.is_some_and(|ov| quotes_key(&ov.quote) == key));
    // So does a value that carries none of them ("You are reading the
    // documentation for 5.x" for "replication").
    if (shared_value || own == 0)
        && relevance(&first.quote, &mine) > own
        && quotes_key(&first.quote) != key
    {
        return Some(first);
    }
    let elsewhere = aspects.iter().enumerate().any(|(j, o)| {
        j != i
            && o.view.is_some_and(|ov| quotes_key(&ov.quote) == key)
            && relevance(&v.quote, &label_of(o)) > own
    });
    (elsewhere && quotes_key(&first.quote) != key).then_some(first)
}

/// The scope a sub-topic view adds to its field ("international").
fn scope_of(v: &FieldView) -> &str {
    v.key.split_once(':').map(|(_, s)| s).unwrap_or(&v.key)
}

/// A quote as a sentence of the lead: verbatim, quoted, cited.
fn cited(quote: &str, source: usize) -> String {
    format!("{} [{source}]", quoted(quote))
}

/// For due diligence, what is settled and what to check before deciding:
/// one plain sentence, then the points to check, each with its evidence.
fn settled_and_to_check(
    aspects: &[Aspect],
    date_of: &dyn Fn(&str, Option<&str>) -> Option<String>,
) -> String {
    let settled: Vec<String> = aspects
        .iter()
        .filter(|a| a.view.is_some_and(|v| !v.uncertain))
        .map(|a| a.label.to_lowercase())
        .collect();
    let to_check = risks(aspects, date_of);
    let mut out = String::new();
    if !settled.is_empty() {
        out.push_str(&format!(
            "Consistent sources settle {} of the {} points asked about ({}).\n\n",
            settled.len(),
            aspects.len(),
            settled.join(", ")
        ));
    }
    if !to_check.is_empty() {
        out.push_str("**To check before deciding:**\n\n");
        for r in to_check {
            out.push_str(&format!("- {r}\n"));
        }
        out.push('\n');
    }
    out
}

/// What a due-diligence reader must weigh: incidents found, values the
/// sources do not settle, each with its evidence.
fn risks(
    aspects: &[Aspect],
    date_of: &dyn Fn(&str, Option<&str>) -> Option<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    for a in aspects {
        let Some(v) = a.view else {
            if a.unit.findings.is_empty() {
                out.push(format!(
                    "{}: no verifiable evidence found.",
                    capitalize(&a.label)
                ));
            }
            continue;
        };
        let dated = |q: &str, n: usize, d: Option<&str>| {
            let when = date_of(q, d)
                .map(|d| format!(" (as of {d})"))
                .unwrap_or_default();
            format!("{}{when}", cited(q, n))
        };
        if v.field == Field::SecurityIncident.as_str()
            || v.field == Field::Reliability.as_str() && mentions_incident(&v.quote)
        {
            out.push(format!(
                "{}: {}",
                capitalize(&a.label),
                dated(&v.quote, v.source, v.as_of.as_deref())
            ));
        } else if v.uncertain {
            let why = if v.conflicts.is_empty() {
                "only one source states it"
            } else {
                "sources from the same period give different values (see Where the sources disagree)"
            };
            out.push(format!("{}: not settled: {why}.", capitalize(&a.label)));
        } else if let Some(c) = v
            .conflicts
            .iter()
            .find(|c| c.status == "unresolved" || c.confidence >= crate::evidence::merge::STRONG)
        {
            out.push(format!(
                "{}: another source gives a different value: {}",
                capitalize(&a.label),
                dated(&c.quote, c.source, c.as_of.as_deref())
            ));
        }
    }
    out
}

fn mentions_incident(quote: &str) -> bool {
    let q = quote.to_lowercase();
    ["outage", "downtime", "breach", "incident", "disruption"]
        .iter()
        .any(|w| q.contains(w))
}

/// Every finding that dates itself, in date order, for what-changed
/// questions (a page's date says when it was written, not when something
/// changed, so undated sentences stay out).
fn timeline(aspects: &[Aspect], today: NaiveDate) -> String {
    let mut rows: Vec<(String, String, &Finding)> = Vec::new();
    let mut seen = BTreeSet::new();
    for a in aspects {
        for f in &a.unit.findings {
            if let Some(d) = values::sentence_date(&f.quote, today)
                && seen.insert((f.source, quotes_key(&f.quote)))
            {
                rows.push((d.to_string(), a.label.clone(), f));
            }
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0).then(a.2.source.cmp(&b.2.source)));
    let mut md = String::from("## Timeline\n\n");
    let one_aspect = aspects.len() == 1;
    for (d, label, f) in rows {
        let cite = cited(&f.quote, f.source);
        if one_aspect {
            md.push_str(&format!("- {d}: {cite}\n"));
        } else {
            md.push_str(&format!("- {d} ({label}): {cite}\n"));
        }
    }
    md.push('\n');
    md
}

fn quotes_key(q: &str) -> String {
    q.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The item and criterion an aspect label names when it is a cell of a
/// comparison: the label starts with one compared item's name and goes on
/// with the criterion ("Quillstore licence", "Postgres for analytics").
fn cell_of(items: &[String], label: &str) -> Option<(usize, String)> {
    let lower = label.to_lowercase();
    let (col, item) = items
        .iter()
        .enumerate()
        .filter(|(_, i)| {
            let i = i.to_lowercase();
            lower.starts_with(&i) && lower.get(i.len()..).is_some_and(|r| r.starts_with(' '))
        })
        .max_by_key(|(_, i)| i.len())?;
    let rest = label.get(item.len()..)?.trim_start_matches([' ', ':']);
    let criterion = rest.strip_prefix("for ").unwrap_or(rest).trim();
    (!criterion.is_empty()).then(|| (col, criterion.to_string()))
}

/// The comparison as a table: one row per criterion and one column per
/// compared item when the aspects are its cells ("Quillstore licence"),
/// else one row per aspect; each cell its answer, quoted and cited.
fn comparison(
    question: &str,
    aspects: &[Aspect],
    date_of: &dyn Fn(&str, Option<&str>) -> Option<String>,
) -> String {
    let cell = |s: &str| super::quoting::one_line(s).replace('|', "\\|");
    let answer_of = |a: &Aspect| -> Option<String> {
        let (quote, n, as_of) = match a.view.filter(|_| a.pick.is_none()) {
            Some(v) => (v.quote.as_str(), v.source, v.as_of.clone()),
            None => {
                let f = a.pick.or_else(|| {
                    (!a.unit.findings.is_empty()).then(|| most_current(&a.unit.findings))
                })?;
                (
                    f.quote.as_str(),
                    f.source,
                    date_of(&f.quote, f.as_of.as_deref()),
                )
            }
        };
        let when = as_of.map(|d| format!(" (as of {d})")).unwrap_or_default();
        Some(cell(&format!("{}{when}", cited(quote, n))))
    };
    let items = crate::question::comparison_items(question);
    // The aspects that are cells: "item: criterion".
    let mut criteria: Vec<String> = Vec::new();
    let mut cells: Vec<(String, usize, &Aspect)> = Vec::new();
    for a in aspects {
        let Some((col, criterion)) = cell_of(&items, &a.label) else {
            continue;
        };
        if !criteria.contains(&criterion) {
            criteria.push(criterion.clone());
        }
        cells.push((criterion, col, a));
    }
    let mut md = String::new();
    if items.len() >= 2 && cells.len() >= 2 {
        md.push_str(&format!(
            "| | {} |\n|---|{}\n",
            items
                .iter()
                .map(|i| cell(i))
                .collect::<Vec<_>>()
                .join(" | "),
            "---|".repeat(items.len())
        ));
        for c in &criteria {
            let row: Vec<String> = (0..items.len())
                .map(|col| {
                    cells
                        .iter()
                        .find(|(cr, cl, _)| cr == c && *cl == col)
                        .and_then(|(_, _, a)| answer_of(a))
                        .unwrap_or_else(|| "not found".into())
                })
                .collect();
            md.push_str(&format!(
                "| {} | {} |\n",
                cell(&capitalize(c)),
                row.join(" | ")
            ));
        }
    } else {
        let rows: Vec<String> = aspects
            .iter()
            .filter_map(|a| {
                Some(format!(
                    "| {} | {} |\n",
                    cell(&capitalize(&a.label)),
                    answer_of(a)?
                ))
            })
            .collect();
        if rows.is_empty() {
            return String::new();
        }
        md.push_str("| Aspect | Answer |\n|---|---|\n");
        md.extend(rows);
    }
    format!("## Comparison\n\n{md}\n")
}

/// The final report: scrubbed, citations renumbered by first appearance
/// (unknown ones dropped), the model's own source list replaced by ours
/// (`numbered`: the run's source numbers and their pages),
/// security notes and a footer appended. `skipped` are pages not read
/// because memory knows their domain (url, why): their notes survive memory.
pub fn finalize(
    markdown: &str,
    pages: &[Page],
    numbered: &[(usize, Page)],
    skipped: &[(String, String)],
    footer: &str,
) -> FinalReport {
    let scrubbed = hygiene::scrub(markdown);
    let (body, _, _) = citations::split_sources(&scrubbed.markdown);
    let keep: BTreeSet<usize> = numbered.iter().map(|(n, _)| *n).collect();
    let (body, order) = citations::renumber(body.trim_end(), &keep);
    let sources: Vec<SourceEntry> = order
        .iter()
        .enumerate()
        .filter_map(|(i, &old)| {
            let (_, p) = numbered.iter().find(|(n, _)| *n == old)?;
            Some(SourceEntry {
                index: i + 1,
                url: crate::document::sanitize_line(&p.url).into_owned(),
                title: crate::document::sanitize_line(&p.title).into_owned(),
                domain: p.domain.clone(),
                source_type: p.source_type,
                published: p.published.clone(),
                updated: p.updated.clone(),
                retrieved: p.retrieved.clone(),
                authors: p
                    .authors
                    .iter()
                    .map(|a| crate::document::single_line(a))
                    .collect(),
                publisher: p.publisher.as_deref().map(crate::document::single_line),
            })
        })
        .collect();

    let cited: Vec<&str> = sources.iter().map(|s| s.url.as_str()).collect();
    let gated = super::links::gate(&crate::document::sanitize_text(&body), &cited);
    let mut md = gated.markdown;
    md.push_str("\n\n");
    let quarantined: Vec<&Page> = pages
        .iter()
        .filter(|p| p.verdict == Verdict::Quarantined)
        .collect();
    let lookalikes = pages
        .iter()
        .filter(|p| p.verdict == Verdict::Rejected && p.identity.lookalike.is_some())
        .count();
    if !quarantined.is_empty() || lookalikes > 0 || !skipped.is_empty() {
        md.push_str("## Security notes\n\n");
        for p in &quarantined {
            md.push_str(&format!(
                "- Quarantined {} ({}): {}. Its content was not used.\n",
                super::links::inert(&p.url),
                p.domain,
                p.reason
                    .as_deref()
                    .unwrap_or("instructions aimed at AI agents")
            ));
        }
        for (url, why) in skipped {
            md.push_str(&format!(
                "- Not read {} ({}): this domain {}. Its content was not used.\n",
                super::links::inert(url),
                crate::document::host_of(url),
                why.trim_end_matches('.')
            ));
        }
        if lookalikes > 0 {
            md.push_str(&format!(
                "- {lookalikes} page(s) about a different entity with a similar name were excluded (see evidence.json).\n"
            ));
        }
        md.push('\n');
    }
    md.push_str("## Sources\n\n");
    if sources.is_empty() {
        md.push_str("No sources were cited.\n");
    }
    for s in &sources {
        let mut meta = vec![s.source_type.as_str().replace('_', " ")];
        if let Some(p) = &s.published {
            meta.push(format!("published {p}"));
        }
        if let Some(u) = s
            .updated
            .as_ref()
            .filter(|u| Some(*u) != s.published.as_ref())
        {
            meta.push(format!("updated {u}"));
        }
        meta.push(format!("retrieved {}", s.retrieved));
        // A title is a page's text: no link or image from it is rendered.
        let title = super::links::gate(s.title.trim(), &[]).markdown;
        let title = title.trim();
        let sep = if title.ends_with(['.', '?', '!']) {
            ""
        } else {
            "."
        };
        md.push_str(&format!(
            "[{}] {title}{sep} {} ({})\n",
            s.index,
            s.url,
            meta.join("; ")
        ));
    }
    if !footer.is_empty() {
        md.push_str(&format!("\n---\n\n{footer}\n"));
    }
    FinalReport {
        // No control sequence or bidi override from a page, a model or the question reaches report.md.
        markdown: crate::document::sanitize_text(&md).into_owned(),
        sources,
        scrubbed: scrubbed
            .removed
            .into_iter()
            .chain(gated.removed.into_iter().map(|o| o.what))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::evidence_view::ValueView;

    fn finding(quote: &str, source: usize, as_of: &str) -> Finding {
        Finding {
            claim: quote.into(),
            quote: quote.into(),
            url: format!("https://s{source}.example/"),
            source,
            field: None,
            value: None,
            as_of: Some(as_of.into()),
            title: String::new(),
            source_type: Some(SourceType::News),
        }
    }

    fn unit(aspect: &str, findings: Vec<Finding>) -> Findings {
        Findings {
            unit: "sub-1".into(),
            aspect: aspect.into(),
            summary: String::new(),
            findings,
            gaps: vec![],
            ..Default::default()
        }
    }

    fn view(
        key: &str,
        field: &str,
        quote: &str,
        source: usize,
        as_of: &str,
        confidence: f64,
    ) -> FieldView {
        FieldView {
            field: field.into(),
            key: key.into(),
            label: key.into(),
            value: format!("the value of {key}"),
            quote: quote.into(),
            source,
            confidence,
            agreeing: 1,
            as_of: Some(as_of.into()),
            outcome: "accepted_one".into(),
            uncertain: confidence < 0.6,
            note: String::new(),
            history: vec![],
            conflicts: vec![],
            rejected: vec![],
        }
    }

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 29).unwrap()
    }

    fn section<'a>(md: &'a str, title: &str) -> &'a str {
        md.split("\n## ")
            .find(|s| s.starts_with(title))
            .unwrap_or("")
    }

    const CEO: &str = "Kavya Menon became chief executive officer of Acme on 1 March 2026.";
    const INCIDENT: &str = "A misconfigured storage bucket exposed merchant invoices in May 2025.";

    #[test]
    fn a_due_diligence_answer_says_what_is_settled_what_to_check_and_one_line_per_aspect() {
        let units = [
            unit("leadership", vec![finding(CEO, 1, "2026-03-05")]),
            unit(
                "security incidents",
                vec![finding(INCIDENT, 2, "2025-05-21")],
            ),
            unit("licence status", vec![]),
        ];
        let mut incident = view(
            "security_incident",
            "security_incident",
            INCIDENT,
            2,
            "2025-05-01",
            0.9,
        );
        incident.conflicts.push(ValueView {
            value: "x".into(),
            quote: "Acme will tell merchants if data is exposed.".into(),
            source: 3,
            source_type: SourceType::Official,
            confidence: 0.5,
            as_of: None,
            status: "contested".into(),
        });
        let merged = [view("ceo", "ceo", CEO, 1, "2026-03-01", 0.95), incident];
        let md = draft_on(
            "Is Acme a reliable payment partner? Check leadership, security incidents and licence status.",
            Some("Acme"),
            &units,
            &merged,
            today(),
        );
        let answer = section(&md, "Answer");
        assert!(
            answer.contains("Consistent sources settle 2 of the 3 points asked about"),
            "{md}"
        );
        assert!(
            answer.contains(&format!("\"{CEO}\" [1]")),
            "the answer quotes and cites: {answer}"
        );
        let risks = answer
            .split("**To check before deciding:**")
            .nth(1)
            .unwrap_or("");
        assert!(
            risks.contains("Security incidents:") && risks.contains("[2]"),
            "{risks}"
        );
        assert!(
            risks.contains("Licence status: no verifiable evidence"),
            "{risks}"
        );
        // The per-aspect lines eval reads come after the lead, one each.
        let line = answer
            .lines()
            .find(|l| l.contains("**Leadership**"))
            .unwrap();
        assert!(
            line.contains("Kavya Menon") && line.contains("as of 2026-03-01"),
            "{line}"
        );
        // No internal measure reaches the reader.
        assert!(!md.contains("confidence"), "{md}");
        assert_eq!(answer.matches("**Leadership**").count(), 1);
    }

    #[test]
    fn a_quote_carries_one_date_everywhere() {
        let units = [unit("leadership", vec![finding(CEO, 1, "2026-03-05")])];
        let merged = [view("ceo", "ceo", CEO, 1, "2026-03-01", 0.95)];
        let md = draft_on("Who runs Acme?", Some("Acme"), &units, &merged, today());
        let dates: BTreeSet<&str> = md
            .lines()
            .filter(|l| l.contains(CEO))
            .filter_map(|l| l.split("as of ").nth(1))
            .map(|d| &d[..10])
            .collect();
        assert_eq!(dates, BTreeSet::from(["2026-03-01"]), "{md}");
    }

    #[test]
    fn what_changed_questions_get_a_dated_timeline() {
        let units = [
            unit(
                "what changed in version 3",
                vec![
                    finding(
                        "Version 3 was published on 10 March 2026 by the alliance.",
                        1,
                        "2026-03-10",
                    ),
                    finding(
                        "The standard describes curb rules for loading zones and bus stops.",
                        2,
                        "2026-07-01",
                    ),
                ],
            ),
            unit(
                "when did it take effect",
                vec![finding(
                    "Version 3 took effect on 1 July 2026 for all new feeds.",
                    3,
                    "2026-07-02",
                )],
            ),
        ];
        let md = draft_on(
            "What changed in version 3 of CurbSpec, and when did it take effect?",
            None,
            &units,
            &[],
            today(),
        );
        let timeline = section(&md, "Timeline");
        let lines: Vec<&str> = timeline.lines().filter(|l| l.starts_with("- ")).collect();
        assert_eq!(lines.len(), 2, "undated sentences stay out: {timeline}");
        assert!(
            lines[0].starts_with("- 2026-03-10 (what changed in version 3):"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("- 2026-07-01 (when did it take effect):"),
            "{}",
            lines[1]
        );
        assert!(!section(&md, "Answer").contains("In short"));
        assert!(!md.contains("## Comparison"));
    }

    const CHARGE: &str = "The Lanholm congestion charge is currently £7.50 a day.";

    #[test]
    fn a_merged_value_without_the_aspects_key_terms_yields_to_an_on_topic_finding() {
        let proposed = "The transport committee proposed a congestion charge on 14 March 2024.";
        let passed = "Full Council passed the congestion charge order on 22 October 2024.";
        // The merge gave both aspects one sentence naming neither's key term.
        let votes = "The order was approved by Full Council by 31 votes to 18.";
        let labels = [
            "When was the Lanholm congestion charge proposed".to_string(),
            "When was the Lanholm congestion charge passed".to_string(),
            "What is the Lanholm congestion charge today".to_string(),
        ];
        let units = [
            unit(
                &labels[0],
                vec![
                    finding(proposed, 1, "2024-03-14"),
                    finding(votes, 4, "2024-10-22"),
                ],
            ),
            unit(
                &labels[1],
                vec![
                    finding(passed, 2, "2024-10-22"),
                    finding(votes, 4, "2024-10-22"),
                ],
            ),
            unit(&labels[2], vec![finding(CHARGE, 3, "2026-09-10")]),
        ];
        let keys = FieldKeys::new(&labels);
        let key = |l: &str| keys.key_for(l, "").key;
        let other = Field::Other.as_str();
        let answer_line = |merged: &[FieldView], l: &str| {
            let md = draft_on(
                "When was the Lanholm congestion charge proposed and passed?",
                None,
                &units,
                merged,
                today(),
            );
            section(&md, "Answer")
                .lines()
                .find(|x| x.starts_with(&format!("- **{l}**")))
                .unwrap_or("")
                .to_string()
        };
        let shared = [
            view(&key(&labels[0]), other, votes, 4, "2024-10-22", 0.9),
            view(&key(&labels[1]), other, votes, 4, "2024-10-22", 0.9),
            view(&key(&labels[2]), other, CHARGE, 3, "2026-09-10", 0.9),
        ];
        assert!(answer_line(&shared, &labels[0]).contains("14 March 2024"));
        assert!(answer_line(&shared, &labels[1]).contains("22 October 2024"));
        // A value the merge gave this aspect alone stays.
        let debated = "The charge was proposed after a long debate in the transport committee.";
        let own = [
            view(&key(&labels[0]), other, debated, 5, "2024-03-14", 0.9),
            view(&key(&labels[1]), other, passed, 2, "2024-10-22", 0.9),
            view(&key(&labels[2]), other, CHARGE, 3, "2026-09-10", 0.9),
        ];
        assert!(answer_line(&own, &labels[0]).contains("long debate"));
        // Unless it carries none of the aspect's key terms.
        let own = [
            view(&key(&labels[0]), other, CHARGE, 3, "2026-09-10", 0.9),
            view(&key(&labels[1]), other, passed, 2, "2024-10-22", 0.9),
        ];
        assert!(answer_line(&own, &labels[0]).contains("14 March 2024"));
    }

    #[test]
    fn comparisons_get_a_table() {
        let units = [
            unit(
                "Quillstore licence",
                vec![finding(
                    "Quillstore is licensed under the Business Source License 1.1.",
                    1,
                    "2026-03-01",
                )],
            ),
            unit(
                "Brinewood for licence",
                vec![finding(
                    "Brinewood is | licensed under the MIT License.",
                    2,
                    "2026-02-01",
                )],
            ),
        ];
        let md = draft_on(
            "Quillstore vs Brinewood: licences",
            None,
            &units,
            &[],
            today(),
        );
        let table = section(&md, "Comparison");
        assert!(table.contains("| | Quillstore | Brinewood |"), "{md}");
        assert!(
            table.contains("| Licence | \"Quillstore is licensed under the Business Source License 1.1.\" [1] (as of 2026-03-01) | \"Brinewood is"),
            "{table}"
        );
        assert!(
            table.contains("Brinewood is \\| licensed"),
            "pipes are escaped: {table}"
        );
        assert!(!md.contains("## Timeline"));
    }

    #[test]
    fn sub_topics_show_under_their_aspect_not_as_its_history() {
        let units = [unit(
            "pricing",
            vec![finding(
                "Acme charges 1.9% per domestic card transaction.",
                1,
                "2026-08-01",
            )],
        )];
        let merged = [
            view(
                "pricing",
                "pricing",
                "Acme charges 1.9% per domestic card transaction.",
                1,
                "2026-08-01",
                0.9,
            ),
            view(
                "pricing:international",
                "pricing",
                "Acme charges 3.4% per international card transaction.",
                1,
                "2026-08-01",
                0.9,
            ),
        ];
        let md = draft_on(
            "What does Acme charge?",
            Some("Acme"),
            &units,
            &merged,
            today(),
        );
        assert!(
            md.contains("  - International: \"Acme charges 3.4%"),
            "{md}"
        );
        assert!(
            !md.contains("## History") && !md.contains("## Conflicts"),
            "{md}"
        );
    }

    #[test]
    fn measures_are_numbers_with_what_they_count() {
        let m = measures("The mode needs at least 300 characters of text, up from 2 pages.");
        assert_eq!(
            m,
            vec![
                ("charact".to_string(), "300".to_string()),
                ("page".to_string(), "2".to_string())
            ]
        );
        // "from 300 to 500 characters": only 500 counts characters.
        let m = measures("We raised the minimum from 300 to 500 characters.");
        assert_eq!(m, vec![("charact".to_string(), "500".to_string())]);
        assert!(measures("It shipped in 2024.").is_empty());
    }

    #[test]
    fn figures_of_different_things_are_not_a_disagreement() {
        // Both state figures, but of nothing in common: two facts.
        assert!(!another_measure(
            "character(n) is usually the slowest of the three types.",
            "Unlogged tables are not written to the log (see Chapter 30)."
        ));
        assert!(another_measure(
            "The limit is 2000 columns.",
            "A table may have 32767 columns."
        ));
        // Another number after the same name.
        assert!(another_measure(
            "With Pelican 42, Calm Read switches to a density scorer.",
            "Pelican 38 introduced Calm Read."
        ));
        // Saying the same number too is agreement, not a rival.
        assert!(!another_measure(
            "The limit is 2000 columns.",
            "It is 2000 columns, or 100 columns in practice."
        ));
    }
}
