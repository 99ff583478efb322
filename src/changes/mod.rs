//! What changed between two runs of a question: per sub-question, what is
//! new, what changed (old value -> new value, each with its quote, source
//! and date), what was retracted, what stayed; and which sources appeared
//! or disappeared. Read from each run's evidence.json and sources.json,
//! never from its report. Sub-questions are matched by their normalised
//! text (a comparison's cells name their item, so each cell matches its
//! own); values are compared after normalisation (numbers, units, dates,
//! names), so "US$55M Series B" and "Series B of $55 million" are one value.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::evidence::Field;
use crate::evidence::merge::{DEFAULT_THRESHOLD, MergedField, Support};
use crate::evidence::values::{key_tokens, normalize_value, same_value};
use crate::store::runs::read_run;

#[derive(Debug, thiserror::Error)]
pub enum ChangesError {
    #[error(
        "run {run} has no evidence.json (it has not finished, or it stopped before merging evidence): finish it with `dra resume {run}`, or pick another run"
    )]
    NoEvidence { run: String },
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a run's evidence file: {source}")]
    Parse {
        path: String,
        source: serde_json::Error,
    },
}

/// One run as a side of a comparison.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunRef {
    pub id: String,
    pub started: Option<String>,
    pub question: Option<String>,
}

/// A value as one run states it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Stated {
    pub value: String,
    pub quote: String,
    pub url: String,
    /// When the value held, as the evidence dates it (else when it was read).
    pub as_of: Option<String>,
    pub confidence: f64,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The value differs: the old one is superseded or no longer stated.
    Changed,
    /// A sub-question only the newer run answers.
    New,
    /// A sub-question the older run answered and the newer one does not.
    Retracted,
    Unchanged,
}

impl ChangeKind {
    pub fn word(self) -> &'static str {
        match self {
            ChangeKind::Changed => "changed",
            ChangeKind::New => "new",
            ChangeKind::Retracted => "retracted",
            ChangeKind::Unchanged => "unchanged",
        }
    }
}

/// One sub-question across the two runs.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FieldChange {
    pub kind: ChangeKind,
    pub label: String,
    pub before: Option<Stated>,
    pub after: Option<Stated>,
}

/// Everything that changed from `from` to `to`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Changes {
    pub from: RunRef,
    pub to: RunRef,
    pub fields: Vec<FieldChange>,
    pub sources_added: Vec<String>,
    pub sources_removed: Vec<String>,
}

impl Changes {
    /// Whether any answer moved: a new, changed or retracted sub-question.
    /// Sources that come and go with the same answers are not a change.
    pub fn any(&self) -> bool {
        self.fields.iter().any(|f| f.kind != ChangeKind::Unchanged)
    }

    pub fn count(&self, kind: ChangeKind) -> usize {
        self.fields.iter().filter(|f| f.kind == kind).count()
    }
}

/// What a run's evidence.json holds that a comparison reads.
#[derive(Debug, Deserialize)]
struct EvidenceFile {
    #[serde(default)]
    fields: Vec<MergedField>,
}

#[derive(Debug, Deserialize)]
struct SourceEntry {
    url: String,
}

/// One side: the run's identity, its merged fields and its sources.
struct Side {
    run: RunRef,
    fields: Vec<MergedField>,
    sources: BTreeSet<String>,
}

fn read_side(dir: &Path) -> Result<Side, ChangesError> {
    let info = read_run(dir);
    let path = dir.join("evidence.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ChangesError::NoEvidence { run: info.id });
        }
        Err(source) => {
            return Err(ChangesError::Read {
                path: path.display().to_string(),
                source,
            });
        }
    };
    let evidence: EvidenceFile =
        serde_json::from_str(&text).map_err(|source| ChangesError::Parse {
            path: path.display().to_string(),
            source,
        })?;
    // A missing or unreadable sources list only loses the source lines.
    let sources = std::fs::read_to_string(dir.join("sources.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Vec<SourceEntry>>(&t).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|s| s.url)
        .collect();
    Ok(Side {
        run: RunRef {
            id: info.id,
            started: info.started,
            question: info.question,
        },
        fields: evidence.fields,
        sources,
    })
}

/// Compares the run in `from` (older) with the run in `to` (newer).
pub fn between(from: &Path, to: &Path) -> Result<Changes, ChangesError> {
    let (a, b) = (read_side(from)?, read_side(to)?);
    Ok(compare(a, b))
}

/// Compares the run in `from` with a run still being finished: its
/// identity, merged fields and source urls as the engine holds them.
pub fn against(
    from: &Path,
    to: RunRef,
    fields: &[MergedField],
    sources: BTreeSet<String>,
) -> Result<Changes, ChangesError> {
    let a = read_side(from)?;
    let b = Side {
        run: to,
        fields: fields.to_vec(),
        sources,
    };
    Ok(compare(a, b))
}

/// The section a `--since` run's report opens with: each change in a line,
/// values and dates only (the report links only to its own sources; the
/// quotes and links of both runs are in changes.md).
pub fn report_section(c: &Changes) -> String {
    let mut out = opening(c, "##", " (details and sources of both runs in changes.md)");
    if !c.any() {
        return out;
    }
    out.push('\n');
    let date = |s: &Stated| s.as_of.as_deref().map(day).unwrap_or("undated").to_string();
    for f in c.fields.iter().filter(|f| f.kind != ChangeKind::Unchanged) {
        let line = match (&f.before, &f.after) {
            (Some(b), Some(a)) => format!(
                "{} (as of {}) → {} (as of {})",
                b.value,
                date(b),
                a.value,
                date(a)
            ),
            (None, Some(a)) => format!("{} (as of {})", a.value, date(a)),
            (Some(b), None) => format!("{} is no longer supported by any source read", b.value),
            (None, None) => String::new(),
        };
        out.push_str(&format!("- **{}** ({}): {line}\n", f.label, f.kind.word()));
    }
    out
}

/// `report` with `section` placed after its title and question, before
/// its first section.
pub fn open_report_with(report: &str, section: &str) -> String {
    match report.find("\n## ") {
        Some(i) => format!("{}{}\n{}", &report[..=i], section, &report[i + 1..]),
        None => format!("{}\n\n{section}", report.trim_end()),
    }
}

/// A question's words, lowercase, in order: two runs ask the same question
/// when these match (`None` for a question with no word).
pub fn question_key(question: &str) -> Option<String> {
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// A sub-question's identity: its words, lowercase, in order.
fn identity(f: &MergedField) -> String {
    let text = if f.label.is_empty() { &f.key } else { &f.label };
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a field states an answer at all (a best guess counts).
fn answered(f: &MergedField) -> bool {
    !f.value.trim().is_empty() && !f.supporting.is_empty()
}

fn stated(f: &MergedField) -> Stated {
    let best: Option<&Support> = f.supporting.iter().max_by(|a, b| {
        a.counted
            .cmp(&b.counted)
            .then(a.reliability.total_cmp(&b.reliability))
    });
    Stated {
        value: clean(&f.value),
        quote: best.map(|s| clean(&s.snippet)).unwrap_or_default(),
        url: best.map(|s| clean(&s.url)).unwrap_or_default(),
        as_of: f
            .as_of
            .clone()
            .or_else(|| best.and_then(|s| s.as_of.clone()))
            .or_else(|| best.map(|s| s.retrieved.clone())),
        confidence: f.confidence,
    }
}

/// Page text as a comparison shows it: one line, no control characters
/// (it is printed to terminals and written into Markdown).
fn clean(text: &str) -> String {
    crate::document::single_line(&crate::document::sanitize_text(text))
}

/// Whether two values are one value once normalised: equal normal forms,
/// or the merge's own test of one value on their key tokens.
pub fn same(a: &str, b: &str, field: Field) -> bool {
    if normalize_value(a) == normalize_value(b) {
        return true;
    }
    let none = BTreeSet::new();
    same_value(
        &key_tokens(a, field, &none),
        &key_tokens(b, field, &none),
        DEFAULT_THRESHOLD,
    )
    .is_some()
}

fn compare(a: Side, b: Side) -> Changes {
    let mut fields = Vec::new();
    let mut matched: BTreeSet<usize> = BTreeSet::new();
    for old in a.fields.iter().filter(|f| answered(f)) {
        let id = identity(old);
        let new = b
            .fields
            .iter()
            .enumerate()
            .find(|(i, f)| !matched.contains(i) && identity(f) == id);
        let change = match new {
            Some((i, new)) if answered(new) => {
                matched.insert(i);
                let kind = if same(&old.value, &new.value, new.field) {
                    ChangeKind::Unchanged
                } else {
                    ChangeKind::Changed
                };
                FieldChange {
                    kind,
                    label: clean(&new.label),
                    before: Some(stated(old)),
                    after: Some(stated(new)),
                }
            }
            _ => FieldChange {
                kind: ChangeKind::Retracted,
                label: clean(&old.label),
                before: Some(stated(old)),
                after: None,
            },
        };
        fields.push(change);
    }
    let old_ids: BTreeSet<String> = a
        .fields
        .iter()
        .filter(|f| answered(f))
        .map(identity)
        .collect();
    for (i, new) in b.fields.iter().enumerate() {
        if matched.contains(&i) || !answered(new) || old_ids.contains(&identity(new)) {
            continue;
        }
        fields.push(FieldChange {
            kind: ChangeKind::New,
            label: clean(&new.label),
            before: None,
            after: Some(stated(new)),
        });
    }
    fields.sort_by_key(|f| f.kind);
    Changes {
        sources_added: b.sources.difference(&a.sources).cloned().collect(),
        sources_removed: a.sources.difference(&b.sources).cloned().collect(),
        from: a.run,
        to: b.run,
        fields,
    }
}

/// The day of an RFC 3339 time, or the text as it is.
fn day(t: &str) -> &str {
    t.get(..10).unwrap_or(t)
}

fn stated_line(s: &Stated) -> String {
    let date = s.as_of.as_deref().map(day).unwrap_or("undated");
    format!("\"{}\" ({}, as of {date})", s.quote.trim(), s.url)
}

/// The heading, the counts (`note` after them) and, when nothing moved,
/// the line that says so.
fn opening(c: &Changes, heading: &str, note: &str) -> String {
    let since = c.from.started.as_deref().map(day).unwrap_or("the last run");
    let mut out = format!(
        "{heading} Changes since {since}\n\nCompared with run {} ({since}): {} changed, {} new, {} retracted, {} unchanged{note}.\n",
        c.from.id,
        c.count(ChangeKind::Changed),
        c.count(ChangeKind::New),
        c.count(ChangeKind::Retracted),
        c.count(ChangeKind::Unchanged),
    );
    if !c.any() {
        out.push_str("\nNothing the sources say has changed.\n");
    }
    out
}

/// The changes as Markdown (changes.md, and `dra diff`'s output), with
/// each value's quote, source and date.
pub fn markdown(c: &Changes) -> String {
    let mut out = opening(c, "#", "");
    for f in c.fields.iter().filter(|f| f.kind != ChangeKind::Unchanged) {
        out.push_str(&format!("\n- **{}** ({})", f.label, f.kind.word()));
        match (&f.before, &f.after) {
            (Some(b), Some(a)) => {
                out.push_str(&format!(": {} → {}\n", b.value, a.value));
                out.push_str(&format!("  - before: {}\n", stated_line(b)));
                out.push_str(&format!("  - now: {}\n", stated_line(a)));
            }
            (None, Some(a)) => {
                out.push_str(&format!(": {}\n  - now: {}\n", a.value, stated_line(a)));
            }
            (Some(b), None) => out.push_str(&format!(
                ": {} is no longer supported by any source read\n  - before: {}\n",
                b.value,
                stated_line(b)
            )),
            (None, None) => out.push('\n'),
        }
    }
    if !c.sources_added.is_empty() || !c.sources_removed.is_empty() {
        out.push_str("\nSources:\n");
        for u in &c.sources_added {
            out.push_str(&format!("- new: {u}\n"));
        }
        for u in &c.sources_removed {
            out.push_str(&format!("- no longer read: {u}\n"));
        }
    }
    // Quotes are page text: a link in one goes nowhere but to the two
    // runs' own sources.
    let mut allowed: Vec<&str> = c
        .fields
        .iter()
        .flat_map(|f| [&f.before, &f.after])
        .flatten()
        .map(|s| s.url.as_str())
        .collect();
    allowed.extend(
        c.sources_added
            .iter()
            .chain(&c.sources_removed)
            .map(String::as_str),
    );
    crate::report::links::gate(&out, &allowed).markdown
}

#[cfg(test)]
mod tests;
