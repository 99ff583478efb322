//! Composing reports: an extractive draft from findings (the offline model
//! and salvaged reports use it) and the final assembly every report goes
//! through (scrub, renumber by first citation, security notes, sources).

use std::collections::BTreeSet;

use serde::Serialize;

use chrono::NaiveDate;

use super::evidence_view::FieldView;
use super::{citations, hygiene};
use crate::engine::tools::{Finding, Findings};
use crate::evidence::fields::{Field, FieldKeys};
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
}

#[derive(Debug, Clone)]
pub struct FinalReport {
    pub markdown: String,
    pub sources: Vec<SourceEntry>,
    /// What the scrub removed.
    pub scrubbed: Vec<String>,
}

fn quote_md(s: &str) -> String {
    s.replace('\n', " ").trim().to_string()
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Words that mark a sentence as describing a state that has since ended
/// (plain past tense does not: "uptime over the last 12 months was 99.96%").
const PAST_MARKERS: &[&str] = &[
    " until ",
    " formerly ",
    " former ",
    " previously ",
    " used to ",
    " stepped down",
    " no longer ",
    " served as ",
];
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

/// Sentences of the lead at most.
const LEAD_SENTENCES: usize = 4;

/// One aspect of the plan and what is known of it.
struct Aspect<'a> {
    label: String,
    unit: &'a Findings,
    view: Option<&'a FieldView>,
    /// Sub-topics of its field ("international" fees beside domestic ones).
    scoped: Vec<&'a FieldView>,
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
    let aspects: Vec<Aspect> = units
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
            }
        })
        .collect();
    let date_of = |quote: &str, given: Option<&str>| quote_date(quote, given, today);

    let mut md = String::new();
    let title = entity
        .map(|e| format!("{e}: research report"))
        .unwrap_or_else(|| "Research report".into());
    md.push_str(&format!(
        "# {title}\n\n**Question:** {}\n\n",
        question.trim()
    ));
    md.push_str("## Answer\n\n");
    let answered = aspects
        .iter()
        .filter(|a| !a.unit.findings.is_empty())
        .count();
    if answered == 0 && merged.is_empty() {
        md.push_str("No verifiable evidence was found in the sources read.\n\n");
    } else {
        md.push_str(&lead(kind, &aspects, &date_of));
    }
    for a in &aspects {
        if let Some(v) = a.view {
            md.push_str(&format!(
                "- **{}**: \"{}\" [{}] (confidence {:.2}",
                capitalize(&a.label),
                quote_md(&v.quote),
                v.source,
                v.confidence
            ));
            if let Some(d) = &v.as_of {
                md.push_str(&format!(", as of {d}"));
            }
            md.push(')');
            if v.uncertain {
                md.push_str(&format!(" (uncertain: {})", v.note.trim_end_matches('.')));
            }
            md.push('\n');
            for s in &a.scoped {
                md.push_str(&format!(
                    "  - {}: \"{}\" [{}]",
                    capitalize(scope_of(s)),
                    quote_md(&s.quote),
                    s.source
                ));
                if let Some(d) = &s.as_of {
                    md.push_str(&format!(" (as of {d})"));
                }
                md.push('\n');
            }
        } else if !a.unit.findings.is_empty() {
            let f = most_current(&a.unit.findings);
            md.push_str(&format!(
                "- **{}**: \"{}\" [{}]",
                capitalize(&a.label),
                quote_md(&f.quote),
                f.source
            ));
            if let Some(d) = date_of(&f.quote, f.as_of.as_deref()) {
                md.push_str(&format!(" (as of {d})"));
            }
            md.push('\n');
        }
    }
    md.push('\n');
    match kind {
        QuestionKind::WhatChanged => md.push_str(&timeline(&aspects, &date_of)),
        QuestionKind::Comparison => md.push_str(&comparison(&aspects, &date_of)),
        _ => {}
    }
    md.push_str("## Findings\n\n");
    for a in aspects.iter().filter(|a| !a.unit.findings.is_empty()) {
        md.push_str(&format!("### {}\n\n", capitalize(&a.label)));
        for f in &a.unit.findings {
            md.push_str(&format!("- \"{}\" [{}]", quote_md(&f.quote), f.source));
            let mut meta = Vec::new();
            if !f.source_type.is_empty() {
                meta.push(f.source_type.replace('_', " "));
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
    let with_history: Vec<(&str, &FieldView)> = aspects
        .iter()
        .filter_map(|a| {
            a.view
                .filter(|v| !v.history.is_empty())
                .map(|v| (a.label.as_str(), v))
        })
        .collect();
    if !with_history.is_empty() {
        md.push_str("## History\n\n");
        for (aspect, v) in &with_history {
            for h in &v.history {
                md.push_str(&format!(
                    "- **{}** (earlier): \"{}\" [{}]",
                    capitalize(aspect),
                    quote_md(&h.quote),
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
    let disputed: Vec<(&str, &FieldView)> = aspects
        .iter()
        .filter_map(|a| {
            a.view
                .filter(|v| {
                    !(v.history.is_empty() && v.conflicts.is_empty() && v.rejected.is_empty())
                })
                .map(|v| (a.label.as_str(), v))
        })
        .collect();
    if !disputed.is_empty() {
        md.push_str("## Conflicts\n\n");
        for (aspect, v) in &disputed {
            md.push_str(&format!(
                "- **{}**: {} ({}).\n",
                capitalize(aspect),
                v.note.trim_end_matches('.'),
                v.outcome.replace('_', " ")
            ));
            md.push_str(&format!(
                "  - current: \"{}\" [{}] (confidence {:.2}{})\n",
                quote_md(&v.quote),
                v.source,
                v.confidence,
                v.as_of
                    .as_deref()
                    .map(|d| format!(", as of {d}"))
                    .unwrap_or_default()
            ));
            for (label, values) in [
                ("earlier, true at its time", &v.history),
                ("disputed", &v.conflicts),
                ("rejected as weak", &v.rejected),
            ] {
                for c in values.iter() {
                    md.push_str(&format!(
                        "  - {label}: \"{}\" [{}] ({}, confidence {:.2}{})\n",
                        quote_md(&c.quote),
                        c.source,
                        c.source_type.replace('_', " "),
                        c.confidence,
                        c.as_of
                            .as_deref()
                            .map(|d| format!(", as of {d}"))
                            .unwrap_or_default()
                    ));
                }
            }
        }
        md.push('\n');
    }
    let gaps: Vec<String> = aspects
        .iter()
        .flat_map(|a| {
            let mut g: Vec<String> = a
                .unit
                .gaps
                .iter()
                .map(|g| format!("{}: {g}", capitalize(&a.label)))
                .collect();
            if a.unit.findings.is_empty() && g.is_empty() {
                g.push(format!(
                    "{}: no verifiable evidence found in the sources read",
                    capitalize(&a.label)
                ));
            }
            g
        })
        .collect();
    if !gaps.is_empty() {
        md.push_str("## Gaps\n\n");
        for g in gaps {
            md.push_str(&format!("- {g}\n"));
        }
        md.push('\n');
    }
    md
}

/// The scope a sub-topic view adds to its field ("international").
fn scope_of(v: &FieldView) -> &str {
    v.key.split_once(':').map(|(_, s)| s).unwrap_or(&v.key)
}

/// A quote as a sentence of the lead: verbatim, quoted, cited.
fn cited(quote: &str, source: usize) -> String {
    format!("\"{}\" [{source}]", quote_md(quote))
}

/// The lead of the Answer: the strongest verified values (strong, settled,
/// most confident first), each quoted and cited; for due diligence a
/// verdict line and the main risks.
fn lead(
    kind: QuestionKind,
    aspects: &[Aspect],
    date_of: &dyn Fn(&str, Option<&str>) -> Option<String>,
) -> String {
    let mut strong: Vec<&Aspect> = aspects
        .iter()
        .filter(|a| a.view.is_some_and(|v| !v.uncertain))
        .collect();
    strong.sort_by(|a, b| {
        let (va, vb) = (
            a.view.map_or(0.0, |v| v.confidence),
            b.view.map_or(0.0, |v| v.confidence),
        );
        vb.total_cmp(&va)
    });
    let mut sentences: Vec<String> = strong
        .iter()
        .filter_map(|a| a.view.map(|v| cited(&v.quote, v.source)))
        .collect();
    // Aspects with findings and no merged view speak through their most
    // current finding.
    for a in aspects
        .iter()
        .filter(|a| a.view.is_none() && !a.unit.findings.is_empty())
    {
        let f = most_current(&a.unit.findings);
        sentences.push(cited(&f.quote, f.source));
    }
    sentences.truncate(LEAD_SENTENCES);
    let mut out = String::new();
    if kind == QuestionKind::DueDiligence {
        let settled = aspects
            .iter()
            .filter(|a| a.view.is_some_and(|v| !v.uncertain))
            .count();
        let risks = risks(aspects, date_of);
        out.push_str(&format!(
            "**Verdict** (extractive: assembled from the verified findings, not a judgement): {settled} of {} aspect(s) are established by strong, consistent evidence; {} point(s) need attention before deciding.\n\n",
            aspects.len(),
            risks.len()
        ));
        if !sentences.is_empty() {
            out.push_str(&format!(
                "What the strongest evidence says: {}\n\n",
                sentences.join(" ")
            ));
        }
        if !risks.is_empty() {
            out.push_str("**Main risks:**\n\n");
            for r in risks {
                out.push_str(&format!("- {r}\n"));
            }
            out.push('\n');
        }
    } else if !sentences.is_empty() {
        out.push_str(&format!(
            "In short (verbatim from the strongest verified sources): {}\n\n",
            sentences.join(" ")
        ));
    }
    if !out.is_empty() {
        out.push_str("By aspect:\n\n");
    }
    out
}

/// What a due-diligence reader must weigh: incidents found, values that
/// are uncertain or contested, each with its evidence.
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
            out.push(format!(
                "{}: uncertain ({}).",
                capitalize(&a.label),
                v.note.trim_end_matches('.')
            ));
        } else if let Some(c) = v
            .conflicts
            .iter()
            .find(|c| c.status == "unresolved" || c.confidence >= crate::evidence::merge::STRONG)
        {
            out.push(format!(
                "{}: a contested value remains: {}",
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

/// Every dated finding in date order, for what-changed questions.
fn timeline(aspects: &[Aspect], date_of: &dyn Fn(&str, Option<&str>) -> Option<String>) -> String {
    let mut rows: Vec<(String, String, &Finding)> = Vec::new();
    let mut seen = BTreeSet::new();
    for a in aspects {
        for f in &a.unit.findings {
            if let Some(d) = date_of(&f.quote, f.as_of.as_deref())
                && seen.insert((f.source, quotes_key(&f.quote)))
            {
                rows.push((d, a.label.clone(), f));
            }
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    rows.sort_by(|a, b| a.0.cmp(&b.0).then(a.2.source.cmp(&b.2.source)));
    let mut md = String::from("## Timeline\n\n");
    for (d, label, f) in rows {
        md.push_str(&format!(
            "- {d} ({}): {}\n",
            label,
            cited(&f.quote, f.source)
        ));
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

/// One row per aspect: its value, confidence and date, side by side.
fn comparison(
    aspects: &[Aspect],
    date_of: &dyn Fn(&str, Option<&str>) -> Option<String>,
) -> String {
    let cell = |s: &str| quote_md(s).replace('|', "\\|");
    let mut md = String::from(
        "## Comparison\n\n| Aspect | Evidence | Confidence | As of |\n|---|---|---|---|\n",
    );
    let mut any = false;
    for a in aspects {
        let (quote, n, conf, as_of) = match a.view {
            Some(v) => (
                v.quote.as_str(),
                v.source,
                format!("{:.2}", v.confidence),
                v.as_of.clone(),
            ),
            None if !a.unit.findings.is_empty() => {
                let f = most_current(&a.unit.findings);
                (
                    f.quote.as_str(),
                    f.source,
                    "-".to_string(),
                    date_of(&f.quote, f.as_of.as_deref()),
                )
            }
            None => continue,
        };
        any = true;
        md.push_str(&format!(
            "| {} | {} | {conf} | {} |\n",
            cell(&capitalize(&a.label)),
            cell(&cited(quote, n)),
            as_of.unwrap_or_else(|| "-".into())
        ));
    }
    md.push('\n');
    if any { md } else { String::new() }
}

/// The final report: scrubbed, citations renumbered by first appearance
/// (unknown ones dropped), the model's own source list replaced by ours,
/// security notes and a footer appended.
pub fn finalize(markdown: &str, pages: &[Page], numbered: &[Page], footer: &str) -> FinalReport {
    let scrubbed = hygiene::scrub(markdown);
    let (body, _, _) = citations::split_sources(&scrubbed.markdown);
    let keep: BTreeSet<usize> = (1..=numbered.len()).collect();
    let (body, order) = citations::renumber(body.trim_end(), &keep);
    let sources: Vec<SourceEntry> = order
        .iter()
        .enumerate()
        .filter_map(|(i, &old)| {
            let p = numbered.get(old - 1)?;
            Some(SourceEntry {
                index: i + 1,
                url: p.url.clone(),
                title: p.title.clone(),
                domain: p.domain.clone(),
                source_type: p.source_type,
                published: p.published.clone(),
                updated: p.updated.clone(),
                retrieved: p.retrieved.clone(),
            })
        })
        .collect();

    let mut md = body;
    md.push_str("\n\n");
    let quarantined: Vec<&Page> = pages
        .iter()
        .filter(|p| p.verdict == Verdict::Quarantined)
        .collect();
    let lookalikes = pages
        .iter()
        .filter(|p| p.verdict == Verdict::Rejected && p.identity.lookalike.is_some())
        .count();
    if !quarantined.is_empty() || lookalikes > 0 {
        md.push_str("## Security notes\n\n");
        for p in &quarantined {
            md.push_str(&format!(
                "- Quarantined {} ({}): {}. Its content was not used.\n",
                p.url,
                p.domain,
                p.reason
                    .as_deref()
                    .unwrap_or("instructions aimed at AI agents")
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
        let title = s.title.trim();
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
        markdown: md,
        sources,
        scrubbed: scrubbed.removed,
    }
}
