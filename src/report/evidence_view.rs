//! The merged evidence as the writer sees it: per field, the current value
//! with a verbatim quote and its `[n]`, confidence and as-of date, and the
//! history, conflicts and rejected values, each with their own `[n]`. Never
//! raw pages.

use serde::{Deserialize, Serialize};

use crate::document::SourceType;
use crate::evidence::merge::{MergedField, Support, ValueCluster};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldView {
    pub field: String,
    /// What the merge grouped it by: the field's name, an aspect's slug,
    /// `key:scope` for a sub-topic.
    #[serde(default)]
    pub key: String,
    #[serde(default)]
    pub label: String,
    pub value: String,
    pub quote: String,
    pub source: usize,
    pub confidence: f64,
    /// The independent sources (publishers, copies counted once) stating it.
    #[serde(default)]
    pub agreeing: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub as_of: Option<String>,
    pub outcome: String,
    pub uncertain: bool,
    pub note: String,
    #[serde(default)]
    pub history: Vec<ValueView>,
    #[serde(default)]
    pub conflicts: Vec<ValueView>,
    #[serde(default)]
    pub rejected: Vec<ValueView>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValueView {
    pub value: String,
    pub quote: String,
    pub source: usize,
    pub source_type: SourceType,
    pub confidence: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub as_of: Option<String>,
    pub status: String,
}

fn name<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// The support to quote: the most reliable one that has a source number.
fn best<'a>(
    supports: &'a [Support],
    number_of: &dyn Fn(&str) -> Option<usize>,
) -> Option<(&'a Support, usize)> {
    let mut with_numbers: Vec<(&Support, usize)> = supports
        .iter()
        .filter_map(|s| number_of(&s.url).map(|n| (s, n)))
        .collect();
    with_numbers.sort_by(|a, b| {
        b.0.counted
            .cmp(&a.0.counted)
            .then(b.0.reliability.total_cmp(&a.0.reliability))
            .then(a.1.cmp(&b.1))
    });
    with_numbers.into_iter().next()
}

fn cluster_view(c: &ValueCluster, number_of: &dyn Fn(&str) -> Option<usize>) -> Option<ValueView> {
    let (s, n) = best(&c.supporting, number_of)?;
    Some(ValueView {
        value: c.value.clone(),
        quote: s.snippet.clone(),
        source: n,
        source_type: s.source_type,
        confidence: c.confidence,
        // The quote's own date, so one quote carries one date everywhere.
        as_of: s.as_of.clone().or_else(|| c.as_of.clone()),
        status: name(&c.status),
    })
}

/// The independent voices among supports: one per publisher (a copy or a
/// second page of a publisher does not count again).
fn independent(supports: &[Support]) -> usize {
    supports.iter().filter(|s| s.counted).count()
}

/// The writer's view of merged fields; `number_of` maps a URL to its `[n]`.
pub fn view(fields: &[MergedField], number_of: &dyn Fn(&str) -> Option<usize>) -> Vec<FieldView> {
    fields
        .iter()
        .filter_map(|f| {
            let (s, n) = best(&f.supporting, number_of)?;
            let values = |cs: &[ValueCluster]| {
                cs.iter()
                    .filter_map(|c| cluster_view(c, number_of))
                    .collect::<Vec<_>>()
            };
            Some(FieldView {
                field: f.field.as_str().to_string(),
                key: if f.key.is_empty() {
                    f.field.as_str().to_string()
                } else {
                    f.key.clone()
                },
                label: f.label.clone(),
                value: f.value.clone(),
                quote: s.snippet.clone(),
                source: n,
                confidence: f.confidence,
                agreeing: independent(&f.supporting),
                as_of: s.as_of.clone().or_else(|| f.as_of.clone()),
                outcome: name(&f.outcome),
                uncertain: f.uncertain,
                note: f.note.clone(),
                history: values(&f.history),
                conflicts: values(&f.conflicts),
                rejected: values(&f.rejected)
                    .into_iter()
                    .filter(|v| v.status == "rejected_weak")
                    .collect(),
            })
        })
        .collect()
}
