//! Composing reports: an extractive draft from findings (the offline model
//! and salvaged reports use it) and the final assembly every report goes
//! through (scrub, renumber by first citation, security notes, sources).

use std::collections::BTreeSet;

use serde::Serialize;

use super::evidence_view::FieldView;
use super::{citations, hygiene};
use crate::evidence::fields::{Field, field_for};
use crate::evidence::{Finding, Findings};
use crate::evidence::{Page, SourceType};
use crate::protocol::Verdict;

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
/// evidence: the answer per aspect is the merged current value with its
/// confidence and date, then findings, history, conflicts and gaps.
pub fn draft_from_merged(
    question: &str,
    entity: Option<&str>,
    units: &[Findings],
    merged: &[FieldView],
) -> String {
    let mut md = String::new();
    let title = entity
        .map(|e| format!("{e}: research report"))
        .unwrap_or_else(|| "Research report".into());
    md.push_str(&format!(
        "# {title}\n\n**Question:** {}\n\n",
        question.trim()
    ));
    md.push_str("## Answer\n\n");
    let answered: Vec<&Findings> = units.iter().filter(|u| !u.findings.is_empty()).collect();
    let aspect_of = |u: &Findings| {
        if u.aspect.is_empty() {
            u.unit.clone()
        } else {
            u.aspect.clone()
        }
    };
    // The merged view of an aspect's field, when the merge has one.
    let merged_for = |aspect: &str| -> Option<&FieldView> {
        let field = field_for(aspect);
        (field != Field::Other).then(|| merged.iter().find(|v| v.field == field.as_str()))?
    };
    if answered.is_empty() && merged.is_empty() {
        md.push_str("No verifiable evidence was found in the sources read.\n\n");
    }
    for u in units {
        let aspect = aspect_of(u);
        if let Some(v) = merged_for(&aspect) {
            md.push_str(&format!(
                "- **{}**: \"{}\" [{}] (confidence {:.2}",
                capitalize(&aspect),
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
        } else if !u.findings.is_empty() {
            let f = most_current(&u.findings);
            md.push_str(&format!(
                "- **{}**: \"{}\" [{}]",
                capitalize(&aspect),
                quote_md(&f.quote),
                f.source
            ));
            if let Some(d) = &f.as_of {
                md.push_str(&format!(" (as of {d})"));
            }
            md.push('\n');
        }
    }
    md.push_str("\n## Findings\n\n");
    for u in &answered {
        md.push_str(&format!("### {}\n\n", capitalize(&aspect_of(u))));
        for f in &u.findings {
            md.push_str(&format!("- \"{}\" [{}]", quote_md(&f.quote), f.source));
            let mut meta = Vec::new();
            if !f.source_type.is_empty() {
                meta.push(f.source_type.replace('_', " "));
            }
            if let Some(d) = &f.as_of {
                meta.push(format!("as of {d}"));
            }
            if !meta.is_empty() {
                md.push_str(&format!(" ({})", meta.join(", ")));
            }
            md.push('\n');
        }
        md.push('\n');
    }
    let with_history: Vec<(String, &FieldView)> = units
        .iter()
        .filter_map(|u| {
            let aspect = aspect_of(u);
            merged_for(&aspect)
                .filter(|v| !v.history.is_empty())
                .map(|v| (aspect, v))
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
    let disputed: Vec<(String, &FieldView)> = units
        .iter()
        .filter_map(|u| {
            let aspect = aspect_of(u);
            merged_for(&aspect)
                .filter(|v| {
                    !(v.history.is_empty() && v.conflicts.is_empty() && v.rejected.is_empty())
                })
                .map(|v| (aspect, v))
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
                "  - current: \"{}\" [{}] (confidence {:.2})\n",
                quote_md(&v.quote),
                v.source,
                v.confidence
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
    let gaps: Vec<String> = units
        .iter()
        .flat_map(|u| {
            let aspect = aspect_of(u);
            let mut g: Vec<String> = u
                .gaps
                .iter()
                .map(|g| format!("{}: {g}", capitalize(&aspect)))
                .collect();
            if u.findings.is_empty() && g.is_empty() {
                g.push(format!(
                    "{}: no verifiable evidence found in the sources read",
                    capitalize(&aspect)
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
