//! From evidence to knowledge: per field, values that say the same thing
//! are clustered, each cluster gets a confidence from its independent
//! origins (noisy-OR), and the clusters are resolved with the course's
//! rules into one current value, its history, the conflicts left open and
//! the weak values rejected. Every value keeps its full provenance.
//!
//! Independence: copies found by [`super::dedup`] vote as their origin, and
//! all pages of one publisher (host) are one voice: a company's about page
//! and its press release are not two confirmations. Each voice votes with
//! its most reliable page.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::fields::{Field, FieldKey, FieldKeys, HIGH_STAKES_CAP, mentions};
use super::score::claim_date;
use super::values::{self, entity_tokens, key_tokens, normalize_value, same_value};
use super::{EvidenceItem, SourceType};
use crate::document::host_of;

/// Clusters at or above this confidence are strong.
pub const STRONG: f64 = 0.60;
/// Clusters below this confidence are weak.
pub const WEAK: f64 = 0.40;
/// Two strong values of a time-sensitive field this close in time disagree
/// about the same period.
pub const SAME_PERIOD_DAYS: i64 = 30;
/// No amount of agreement makes a claim certain.
pub const MAX_CONFIDENCE: f64 = 0.99;
/// Token Jaccard at or above which two values are one.
pub const DEFAULT_THRESHOLD: f64 = 0.6;

#[derive(Debug, Clone)]
pub struct MergeOptions {
    /// The run's date: sentences naming later dates are not yet history.
    pub today: NaiveDate,
    /// The organisation's name: its words are ignored when comparing values.
    pub entity: Option<String>,
    /// Token Jaccard at or above which two values are one.
    pub threshold: f64,
    /// The plan's aspects: each is a field of its own unless it maps to a
    /// field of the vocabulary no other aspect maps to (see [`FieldKeys`]).
    pub aspects: Vec<String>,
    /// The answer each aspect's researcher gave (aspect -> value): of
    /// values equally supported, the one it named is the best guess (two
    /// values of one sentence, "$42 million in total after a Series B of
    /// $30 million", are otherwise tied).
    pub answers: HashMap<String, String>,
}

impl MergeOptions {
    pub fn new(today: NaiveDate, entity: Option<&str>) -> MergeOptions {
        MergeOptions {
            today,
            entity: entity.map(str::to_string),
            threshold: DEFAULT_THRESHOLD,
            aspects: Vec::new(),
            answers: HashMap::new(),
        }
    }

    pub fn with_answers(mut self, answers: HashMap<String, String>) -> MergeOptions {
        self.answers = answers;
        self
    }

    pub fn with_aspects<S: AsRef<str>>(mut self, aspects: &[S]) -> MergeOptions {
        self.aspects = aspects.iter().map(|a| a.as_ref().to_string()).collect();
        self
    }
}

/// How a field was resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The evidence clearly favours one value.
    AcceptedOne,
    /// The current value is clear and older values are kept as history.
    TimeSeparated,
    /// No strong value, or strong values from the same period disagree:
    /// the value shown is a best guess and a human should look.
    Unresolved,
}

/// What became of one cluster of values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClusterStatus {
    /// The field's value.
    Current,
    /// A strong value disagreeing with the current one about the same
    /// period (the field is unresolved).
    Unresolved,
    /// An older value of a time-sensitive field, true at its time.
    TimeSeparated,
    /// A disagreeing value not strong enough to overturn the current one nor
    /// weak enough to reject.
    Contested,
    /// A weak value outweighed by stronger evidence.
    RejectedWeak,
    /// A sentence that names no value of the field's kind (no name for a
    /// leader, no year for a founding date) or does not speak of the field
    /// at all, while others do.
    NoValue,
}

/// One piece of evidence behind a value, with everything needed to audit it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Support {
    pub evidence_id: String,
    pub url: String,
    /// The page this one copies, or its own url.
    pub origin_url: String,
    /// The independent voice it counts for (publisher host of the origin).
    pub publisher: String,
    pub source_type: SourceType,
    /// The value as extracted.
    pub value: String,
    pub snippet: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    pub retrieved: String,
    /// When the value held according to this evidence.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<String>,
    pub reliability: f64,
    /// Whether this is its publisher's vote (false: a copy or a weaker page
    /// of a publisher already counted).
    pub counted: bool,
}

/// One value and the evidence that says it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValueCluster {
    pub value: String,
    pub normalized: String,
    pub confidence: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<String>,
    pub status: ClusterStatus,
    /// Independent origins (publishers) behind it.
    pub origins: usize,
    /// A high-stakes value without a regulator or official source and
    /// without two independent origins: confidence capped at 0.35.
    pub capped: bool,
    pub supporting: Vec<Support>,
}

/// What is known about one field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MergedField {
    pub field: Field,
    /// What groups its claims: the field's name, or the aspect's slug for
    /// an aspect outside the vocabulary; a sub-topic adds `:scope`.
    #[serde(default)]
    pub key: String,
    /// The aspect or field, for people.
    #[serde(default)]
    pub label: String,
    /// The scope its values share within the field ("international",
    /// "policy"); empty for the field's main values.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub subtopic: String,
    /// The current value, or the best guess when unresolved.
    pub value: String,
    pub confidence: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<String>,
    pub outcome: Outcome,
    /// Report it with a caveat: unresolved, or below strong confidence.
    pub uncertain: bool,
    pub origins: usize,
    pub capped: bool,
    pub supporting: Vec<Support>,
    /// Older values of a time-sensitive field, newest first.
    pub history: Vec<ValueCluster>,
    /// Values that disagree and were not resolved away.
    pub conflicts: Vec<ValueCluster>,
    /// Weak values outweighed by stronger ones, and sentences that name no
    /// value of the field's kind.
    pub rejected: Vec<ValueCluster>,
    /// One line on why, for the report and the log.
    pub note: String,
}

/// `min(0.99, 1 - prod(1 - r))`: the chance that not every independent
/// source is wrong.
pub fn noisy_or<I: IntoIterator<Item = f64>>(reliabilities: I) -> f64 {
    let disbelief: f64 = reliabilities
        .into_iter()
        .map(|r| 1.0 - r.clamp(0.0, 1.0))
        .product();
    (1.0 - disbelief).clamp(0.0, MAX_CONFIDENCE)
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Evidence prepared for clustering.
struct Prepared<'a> {
    item: &'a EvidenceItem,
    keys: BTreeSet<String>,
    normalized: String,
    date: Option<NaiveDate>,
    /// The sentence says the value no longer holds ([`values::says_superseded`]).
    superseded: bool,
    origin_url: String,
    publisher: String,
}

/// When the evidence says its value held. A sentence value is read for its
/// own dates (see [`values::sentence_date`]); a short value keeps the event
/// date it was given, else its snippet is read; then the page's dates.
fn support_date(item: &EvidenceItem, today: NaiveDate) -> Option<NaiveDate> {
    let read = if values::is_sentence(&item.claim.value) {
        values::sentence_date(&item.claim.value, today)
    } else if item.claim.event_date.is_none() {
        values::sentence_date(&item.claim.snippet, today)
    } else {
        None
    };
    read.or_else(|| claim_date(&item.claim, &item.source))
}

fn publisher_of(origin_url: &str) -> String {
    let host = host_of(origin_url);
    if host.contains('.') {
        host
    } else {
        origin_url.to_string()
    }
}

/// Merges accepted evidence into one [`MergedField`] per field that has
/// any, in field order. `origins` maps a url to the url it copies (from
/// [`super::dedup::origins`]); urls not in it are their own origin.
pub fn merge(
    items: &[EvidenceItem],
    origins: &HashMap<String, String>,
    opts: &MergeOptions,
) -> Vec<MergedField> {
    let keys = FieldKeys::new(&opts.aspects);
    let mut by_key: BTreeMap<(Field, String), (FieldKey, Vec<&EvidenceItem>)> = BTreeMap::new();
    for item in items {
        if item.accepted && item.claim.value.chars().any(char::is_alphanumeric) {
            let context = format!("{} {}", item.claim.value, item.claim.snippet);
            let key = keys.key_for(&item.claim.field, &context);
            by_key
                .entry((key.field, key.key.clone()))
                .or_insert_with(|| (key, Vec::new()))
                .1
                .push(item);
        }
    }
    let mut out = Vec::new();
    for (_, (key, items)) in by_key {
        for (scope, group) in subtopics(key.field, &items) {
            if let Some(mut m) = merge_field(key.field, &group, origins, opts) {
                if scope.is_empty() {
                    m.key = key.key.clone();
                    m.label = key.label.clone();
                } else {
                    m.key = format!("{}:{scope}", key.key);
                    m.label = format!("{} ({})", key.label, scope.replace('+', ", "));
                    m.subtopic = scope;
                }
                out.push(m);
            }
        }
    }
    out
}

/// Splits a field's evidence by sub-topic: its scope
/// ([`values::subtopic`]) and the kind of quantity it states
/// ([`values::unit_kind`]). The main group (the one with the most evidence)
/// comes first with an empty name, joined by the values that have no scope
/// and state the same kind of quantity or none; then one group per other
/// sub-topic, named by its scope or its kind of quantity.
fn subtopics<'a>(field: Field, items: &[&'a EvidenceItem]) -> Vec<(String, Vec<&'a EvidenceItem>)> {
    let mut groups: BTreeMap<(String, &'static str), Vec<&EvidenceItem>> = BTreeMap::new();
    let mut off_field = Vec::new();
    for item in items {
        let (v, s) = (&item.claim.value, &item.claim.snippet);
        // A sentence that does not speak of the field has no sub-topic in
        // it: it joins the main group, where it names no value.
        if values::is_sentence(v) && !mentions(field, v) {
            off_field.push(*item);
            continue;
        }
        groups
            .entry((values::subtopic(v, s), values::unit_kind(v, s)))
            .or_default()
            .push(item);
    }
    if groups.is_empty() {
        return vec![(String::new(), off_field)];
    }
    let only = groups.len() == 1 && off_field.is_empty();
    let best = |v: &Vec<&EvidenceItem>| {
        v.iter()
            .map(|i| i.scores.reliability)
            .fold(0.0_f64, f64::max)
    };
    // The main group: most evidence, then the most reliable piece; a
    // policy is never the main value while facts exist.
    let Some(main) = groups
        .iter()
        .filter(|((scope, _), _)| scope.as_str() != "policy" || only)
        .max_by(|a, b| {
            // Values that state a quantity come before those that state none.
            (!a.0.1.is_empty())
                .cmp(&!b.0.1.is_empty())
                .then(a.1.len().cmp(&b.1.len()))
                .then(best(a.1).total_cmp(&best(b.1)))
                .then(b.0.cmp(a.0))
        })
        .map(|(k, _)| k.clone())
    else {
        // Only a policy spoke of the field: the other sentences are the
        // main group.
        let mut out = vec![(String::new(), off_field)];
        out.extend(groups.into_iter().map(|((scope, _), g)| (scope, g)));
        return out;
    };
    let joins =
        |(scope, unit): &(String, &str)| scope.is_empty() && (*unit == main.1 || unit.is_empty());
    let mut first = Vec::new();
    let mut rest = Vec::new();
    for (k, g) in groups {
        if k == main || joins(&k) {
            first.extend(g);
        } else {
            let name = match (k.0.as_str(), k.1) {
                ("", unit) => unit.to_string(),
                (scope, _) => scope.to_string(),
            };
            rest.push((name, g));
        }
    }
    // Two groups may share a name (a scope stated in two units).
    let mut named: BTreeMap<String, Vec<&EvidenceItem>> = BTreeMap::new();
    for (name, g) in rest {
        named.entry(name).or_default().extend(g);
    }
    first.extend(off_field);
    let mut out = vec![(String::new(), first)];
    out.extend(named);
    out
}

/// Merges the evidence of one field; `None` when there is none.
pub fn merge_field(
    field: Field,
    items: &[&EvidenceItem],
    origins: &HashMap<String, String>,
    opts: &MergeOptions,
) -> Option<MergedField> {
    let entity = entity_tokens(opts.entity.as_deref());
    let mut prepared: Vec<Prepared> = items
        .iter()
        .map(|item| {
            let origin_url = origins
                .get(&item.source.url)
                .cloned()
                .unwrap_or_else(|| item.source.url.clone());
            Prepared {
                item,
                keys: key_tokens(&item.claim.value, field, &entity),
                normalized: normalize_value(&item.claim.value),
                date: support_date(item, opts.today),
                superseded: values::says_superseded(&item.claim.value)
                    || values::named_as_predecessor(&item.claim.snippet, &item.claim.value)
                    || (!values::is_sentence(&item.claim.value)
                        && values::clause_says_ended(
                            &item.claim.snippet,
                            &item.claim.value,
                            opts.today,
                        )),
                publisher: publisher_of(&origin_url),
                origin_url,
            }
        })
        .collect();
    if prepared.is_empty() {
        return None;
    }
    // A fixed order (most reliable first, then by content) makes the result
    // independent of the order evidence arrived in, and makes each
    // cluster's representative its most reliable member.
    prepared.sort_by(|a, b| {
        b.item
            .scores
            .reliability
            .total_cmp(&a.item.scores.reliability)
            .then_with(|| a.normalized.cmp(&b.normalized))
            .then_with(|| a.item.id.cmp(&b.item.id))
            .then_with(|| a.item.source.url.cmp(&b.item.source.url))
            .then_with(|| a.item.claim.snippet.cmp(&b.item.claim.snippet))
    });
    // Each value joins the cluster whose representative it matches best.
    // Comparing with representatives only (not every member) keeps a
    // sentence naming two people from chaining their clusters together.
    let mut clusters: Vec<Vec<usize>> = Vec::new();
    for (i, p) in prepared.iter().enumerate() {
        let mut best: Option<(usize, f64)> = None;
        for (c, members) in clusters.iter().enumerate() {
            let rep = &prepared[members[0]];
            let sim = if rep.normalized == p.normalized {
                Some(1.0)
            } else {
                same_value(&p.keys, &rep.keys, opts.threshold)
            };
            if let Some(s) = sim
                && best.is_none_or(|(_, b)| s > b)
            {
                best = Some((c, s));
            }
        }
        match best {
            Some((c, _)) => clusters[c].push(i),
            None => clusters.push(vec![i]),
        }
    }
    let mut evaluated: Vec<Evaluated> = clusters
        .iter()
        .map(|members| {
            let (cluster, date) = evaluate(field, members, &prepared);
            let superseded = members.iter().all(|&i| prepared[i].superseded);
            // Members share the representative's key tokens or contain
            // them, so an empty key set is the whole cluster's.
            let rep = &prepared[members[0]];
            // A sentence must also speak of the field: the offline model
            // files whatever it quotes under the aspect it was asked about.
            let relevant = members.iter().any(|&i| {
                let v = &prepared[i].item.claim.value;
                !values::is_sentence(v) || mentions(field, v)
            });
            Evaluated {
                cluster,
                date,
                superseded,
                keyed: !rep.keys.is_empty() && relevant,
            }
        })
        .collect();
    // The value the researcher answered with, normalised.
    let answered = items
        .iter()
        .find_map(|i| opts.answers.get(&i.claim.field))
        .map(|a| normalize_value(a));
    let is_answer = |e: &Evaluated| answered.as_deref() == Some(e.cluster.normalized.as_str());
    evaluated.sort_by(|a, b| {
        b.cluster
            .confidence
            .total_cmp(&a.cluster.confidence)
            .then_with(|| is_answer(b).cmp(&is_answer(a)))
            .then_with(|| b.date.cmp(&a.date))
            .then_with(|| a.cluster.normalized.cmp(&b.cluster.normalized))
    });
    Some(resolve(field, evaluated))
}

struct Evaluated {
    cluster: ValueCluster,
    date: Option<NaiveDate>,
    /// Every value of the cluster says it no longer holds.
    superseded: bool,
    /// Whether its values name something of the field's kind.
    keyed: bool,
}

/// Confidence, date and provenance of one cluster.
fn evaluate(
    field: Field,
    members: &[usize],
    prepared: &[Prepared],
) -> (ValueCluster, Option<NaiveDate>) {
    // Members are in the global order, so the first page of a publisher is
    // its most reliable one: its vote.
    let mut votes: BTreeMap<&str, f64> = BTreeMap::new();
    let mut supporting = Vec::with_capacity(members.len());
    for &i in members {
        let p = &prepared[i];
        let counted = !votes.contains_key(p.publisher.as_str());
        if counted {
            votes.insert(&p.publisher, p.item.scores.reliability);
        }
        let s = &p.item.source;
        supporting.push(Support {
            evidence_id: p.item.id.clone(),
            url: s.url.clone(),
            origin_url: p.origin_url.clone(),
            publisher: p.publisher.clone(),
            source_type: s.source_type,
            value: p.item.claim.value.clone(),
            snippet: p.item.claim.snippet.clone(),
            event_date: p.item.claim.event_date.clone(),
            published: s.published.clone(),
            updated: s.updated.clone(),
            retrieved: s.retrieved.clone(),
            as_of: p.date.map(|d| d.to_string()),
            reliability: p.item.scores.reliability,
            counted,
        });
    }
    let mut confidence = noisy_or(votes.values().copied());
    let authoritative = members.iter().any(|&i| {
        matches!(
            prepared[i].item.source.source_type,
            SourceType::Regulator | SourceType::Official
        )
    });
    let capped = field.high_stakes() && !authoritative && votes.len() < 2;
    if capped {
        confidence = confidence.min(HIGH_STAKES_CAP);
    }
    // A value's time is that of the evidence saying it holds; a sentence
    // saying it no longer holds dates it only when nothing else does.
    let date = members
        .iter()
        .filter(|&&i| !prepared[i].superseded)
        .filter_map(|&i| prepared[i].date)
        .max()
        .or_else(|| members.iter().filter_map(|&i| prepared[i].date).max());
    // Shown: a short value if there is one (the most reliable), else the
    // sentence with the fewest key tokens and old values, the one most
    // about the value (a fleet figure that mentions the round in passing
    // is not the round's best wording; "rose from 41 to 44" names 41).
    let shown = members
        .iter()
        .enumerate()
        .min_by_key(|&(pos, &i)| {
            let p = &prepared[i];
            let sentence = values::is_sentence(&p.item.claim.value);
            let focus = if sentence {
                p.keys.len() + values::old_values_named(&p.item.claim.value)
            } else {
                0
            };
            (sentence, focus, pos)
        })
        .map(|(_, &i)| i)
        .unwrap_or(members[0]);
    let rep = &prepared[shown];
    (
        ValueCluster {
            value: rep.item.claim.value.trim().to_string(),
            normalized: rep.normalized.clone(),
            confidence: round3(confidence),
            as_of: date.map(|d| d.to_string()),
            status: ClusterStatus::Contested,
            origins: votes.len(),
            capped,
            supporting,
        },
        date,
    )
}

fn same_period(a: Option<NaiveDate>, b: Option<NaiveDate>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).num_days().abs() <= SAME_PERIOD_DAYS,
        // An undated value cannot be placed before or after another.
        _ => true,
    }
}

/// The course's decision. `clusters` come sorted by confidence.
fn resolve(field: Field, clusters: Vec<Evaluated>) -> MergedField {
    // Sentences that name no value of the field's kind take no part when
    // others do: they can neither win nor disagree.
    let any_keyed = clusters.iter().any(|c| c.keyed);
    let counts = |c: &Evaluated| c.keyed || !any_keyed;
    let strong: Vec<usize> = (0..clusters.len())
        .filter(|&i| counts(&clusters[i]) && clusters[i].cluster.confidence >= STRONG)
        .collect();
    let (winner, outcome_if_clean) = if strong.is_empty() {
        // The best guess is a value still holding: not one its own
        // sentence says was replaced.
        let best = (0..clusters.len())
            .find(|&i| counts(&clusters[i]) && !clusters[i].superseded)
            .or_else(|| (0..clusters.len()).find(|&i| counts(&clusters[i])))
            .unwrap_or(0);
        (best, Outcome::Unresolved)
    } else if field.time_sensitive() {
        // The newest strong value; among equally new, one still holding,
        // then the most confident (earlier in the order).
        let newest = strong
            .iter()
            .copied()
            .max_by(|&a, &b| {
                clusters[a]
                    .date
                    .cmp(&clusters[b].date)
                    .then(clusters[b].superseded.cmp(&clusters[a].superseded))
                    .then(b.cmp(&a))
            })
            .unwrap_or(0);
        (newest, Outcome::AcceptedOne)
    } else {
        (strong[0], Outcome::AcceptedOne)
    };
    let winner_date = clusters[winner].date;
    let winner_superseded = clusters[winner].superseded;
    let winner_weak = clusters[winner].cluster.confidence < WEAK;
    let mut history = Vec::new();
    let mut conflicts = Vec::new();
    let mut rejected = Vec::new();
    let mut current = None;
    let mut same_period_strong = 0;
    for (i, e) in clusters.into_iter().enumerate() {
        let keyed = e.keyed || !any_keyed;
        let (mut c, date, superseded) = (e.cluster, e.date, e.superseded);
        if i == winner {
            current = Some(c);
            continue;
        }
        let is_strong = c.confidence >= STRONG;
        let older = match (date, winner_date) {
            (Some(d), Some(w)) => (w - d).num_days() > SAME_PERIOD_DAYS,
            _ => false,
        };
        c.status = if !keyed {
            ClusterStatus::NoValue
        } else if c.confidence < WEAK && !winner_weak {
            ClusterStatus::RejectedWeak
        } else if outcome_if_clean == Outcome::Unresolved {
            ClusterStatus::Contested
        } else if field.time_sensitive()
            && superseded
            && !winner_superseded
            && !matches!((date, winner_date), (Some(d), Some(w)) if d > w)
        {
            // Its own words say it held before ("earlier releases were
            // ..."): history, not a rival of the value that holds now.
            ClusterStatus::TimeSeparated
        } else if field.time_sensitive() && is_strong && same_period(date, winner_date) {
            same_period_strong += 1;
            ClusterStatus::Unresolved
        } else if field.time_sensitive() && older && is_strong {
            // Only strong older values are history ("true at its time"); a
            // middling one stays visible as contested.
            ClusterStatus::TimeSeparated
        } else {
            ClusterStatus::Contested
        };
        match c.status {
            ClusterStatus::RejectedWeak | ClusterStatus::NoValue => rejected.push(c),
            ClusterStatus::TimeSeparated => history.push(c),
            _ => conflicts.push(c),
        }
    }
    history.sort_by(|a, b| b.as_of.cmp(&a.as_of).then(a.normalized.cmp(&b.normalized)));
    let outcome = if same_period_strong > 0 {
        Outcome::Unresolved
    } else if outcome_if_clean == Outcome::AcceptedOne && !history.is_empty() {
        Outcome::TimeSeparated
    } else {
        outcome_if_clean
    };
    // `winner` always indexes a cluster, and there is at least one.
    let mut current = current.unwrap_or_else(|| ValueCluster {
        value: String::new(),
        normalized: String::new(),
        confidence: 0.0,
        as_of: None,
        status: ClusterStatus::Current,
        origins: 0,
        capped: false,
        supporting: vec![],
    });
    current.status = if outcome == Outcome::Unresolved {
        ClusterStatus::Unresolved
    } else {
        ClusterStatus::Current
    };
    let note = note(field, outcome, &current, &history, &conflicts, &rejected);
    MergedField {
        field,
        key: field.as_str().to_string(),
        label: field.as_str().replace('_', " "),
        subtopic: String::new(),
        uncertain: outcome == Outcome::Unresolved || current.confidence < STRONG,
        value: current.value,
        confidence: current.confidence,
        as_of: current.as_of,
        outcome,
        origins: current.origins,
        capped: current.capped,
        supporting: current.supporting,
        history,
        conflicts,
        rejected,
        note,
    }
}

fn note(
    field: Field,
    outcome: Outcome,
    current: &ValueCluster,
    history: &[ValueCluster],
    conflicts: &[ValueCluster],
    rejected: &[ValueCluster],
) -> String {
    let mut kinds: Vec<&str> = current
        .supporting
        .iter()
        .filter(|s| s.counted)
        .map(|s| s.source_type.as_str())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let mut parts = vec![format!(
        "{} ({}), confidence {:.2}",
        counted(current.origins, "independent source", "independent sources"),
        kinds.join(", ").replace('_', " "),
        current.confidence
    )];
    match outcome {
        Outcome::Unresolved
            if conflicts
                .iter()
                .any(|c| c.status == ClusterStatus::Unresolved) =>
        {
            let n = conflicts
                .iter()
                .filter(|c| c.status == ClusterStatus::Unresolved)
                .count();
            parts.push(format!(
                "strong sources from the same period give {}: worth checking by hand",
                counted(n, "another value", "other values")
            ));
        }
        Outcome::Unresolved => parts.push(format!(
            "no value reaches confidence {STRONG:.2}: a best guess"
        )),
        Outcome::TimeSeparated | Outcome::AcceptedOne => {}
    }
    if current.capped {
        parts.push(format!(
            "{field} is high-stakes and has neither a regulator's or official source nor a second independent source: confidence held at {HIGH_STAKES_CAP:.2}"
        ));
    }
    if !history.is_empty() {
        parts.push(format!(
            "{}, true at its time",
            counted(history.len(), "an older value", "older values")
        ));
    }
    let contested = conflicts
        .iter()
        .filter(|c| c.status == ClusterStatus::Contested)
        .count();
    if contested > 0 {
        parts.push(format!(
            "{} that weaker sources give",
            counted(contested, "another value", "other values")
        ));
    }
    let weak = rejected
        .iter()
        .filter(|c| c.status == ClusterStatus::RejectedWeak)
        .count();
    if weak > 0 {
        parts.push(format!(
            "{} set aside",
            counted(weak, "a weakly supported value", "weakly supported values")
        ));
    }
    parts.join("; ")
}

/// "1 independent source", "3 independent sources"; "another value",
/// "2 other values": the count written as a reader says it.
fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        let first = one.split_whitespace().next().unwrap_or("");
        if matches!(first, "a" | "an" | "another") {
            one.to_string()
        } else {
            format!("1 {one}")
        }
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{Claim, Scores, SourceRef};

    fn day(s: &str) -> NaiveDate {
        crate::evidence::score::parse_date(s).unwrap()
    }

    fn item(
        id: &str,
        field: &str,
        value: &str,
        url: &str,
        source_type: SourceType,
        date: &str,
        reliability: f64,
    ) -> EvidenceItem {
        EvidenceItem {
            id: id.into(),
            origin: "sub-1".into(),
            claim: Claim {
                field: field.into(),
                value: value.into(),
                snippet: format!("The page says: {value}."),
                event_date: None,
            },
            source: SourceRef {
                url: url.into(),
                domain: host_of(url),
                source_type,
                published: Some(date.into()),
                updated: None,
                retrieved: "2026-11-01".into(),
            },
            scores: Scores {
                reliability,
                ..Scores::default()
            },
            accepted: true,
            flags: vec![],
        }
    }

    fn opts() -> MergeOptions {
        MergeOptions::new(day("2026-11-01"), Some("NimbusPay"))
    }

    fn one(items: &[EvidenceItem]) -> MergedField {
        let merged = merge(items, &HashMap::new(), &opts());
        assert_eq!(merged.len(), 1, "{merged:#?}");
        merged.into_iter().next().unwrap()
    }

    /// Two values of one sentence, equally supported.
    fn one_sentence(field: &str, sentence: &str, values: [&str; 2]) -> Vec<EvidenceItem> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let mut it = item(
                    &format!("e{i}"),
                    field,
                    v,
                    "https://corvane.example/news",
                    SourceType::Other,
                    "2026-11-01",
                    0.5,
                );
                it.claim.snippet = sentence.into();
                it
            })
            .collect()
    }

    #[test]
    fn of_two_names_in_one_sentence_the_one_it_says_was_replaced_is_not_the_best_guess() {
        let items = one_sentence(
            "Who is the CEO of Corvane Freight",
            "Leela Das has been the chief executive officer of Corvane Freight since 1 November 2026, replacing Ishaan Rao.",
            ["Ishaan Rao", "Leela Das"],
        );
        let m = merge(
            &items,
            &HashMap::new(),
            &MergeOptions::new(day("2026-12-01"), Some("Corvane Freight")),
        );
        assert_eq!(m[0].value, "Leela Das", "{m:#?}");
    }

    #[test]
    fn of_values_equally_supported_the_researchers_answer_is_the_best_guess() {
        let field = "How much funding has Corvane Freight raised in total";
        let items = one_sentence(
            field,
            "Corvane Freight has raised $42 million in total after a Series B round of $30 million in October 2026.",
            ["$30 million", "$42 million"],
        );
        let opts = MergeOptions::new(day("2026-12-01"), Some("Corvane Freight"));
        let answers = HashMap::from([(field.to_string(), "$42 million".to_string())]);
        let m = merge(&items, &HashMap::new(), &opts.with_answers(answers));
        assert_eq!(m[0].value, "$42 million", "{m:#?}");
    }

    #[test]
    fn a_sentence_saying_its_value_no_longer_holds_is_history_beside_the_current_one() {
        let page = "https://quillstore.example/docs/licensing";
        let mut opts = MergeOptions::new(day("2026-11-01"), Some("Quillstore"));
        opts.aspects = vec!["Quillstore licence".into()];
        let items = [
            item(
                "e1",
                "Quillstore licence",
                "Earlier releases, up to and including Quillstore 4.9, were distributed under the Apache License 2.0 and remain available under that licence.",
                page,
                SourceType::Official,
                "2026-03-01",
                0.9,
            ),
            item(
                "e2",
                "Quillstore licence",
                "Quillstore is distributed under the Business Source License 1.1 since Quillstore 5.0.",
                page,
                SourceType::Official,
                "2026-03-01",
                0.9,
            ),
            item(
                "e3",
                "Quillstore licence",
                "Quillstore is free software under the Apache License 2.0.",
                "https://devblog.example/2024/quillstore",
                SourceType::Blog,
                "2024-03-11",
                0.7,
            ),
        ];
        let merged = merge(&items, &HashMap::new(), &opts);
        let m = merged
            .iter()
            .find(|m| m.label == "Quillstore licence")
            .expect("the licence field");
        assert!(m.value.contains("Business Source License"), "{m:#?}");
        assert!(
            m.history
                .iter()
                .any(|h| h.value.contains("Earlier releases")),
            "{m:#?}"
        );
        assert!(
            !m.conflicts
                .iter()
                .any(|c| c.value.contains("Earlier releases")),
            "{m:#?}"
        );
    }

    #[test]
    fn a_rate_per_second_speaks_of_throughput() {
        assert!(mentions(
            Field::Capacity,
            "In our test, Quillstore 5.1 sustained 182,000 writes per second."
        ));
    }

    #[test]
    fn noisy_or_reproduces_the_course() {
        assert!((noisy_or([0.82, 0.91]) - 0.98).abs() < 0.005);
        assert!((noisy_or([0.34]) - 0.34).abs() < 1e-9);
        assert_eq!(noisy_or([]), 0.0);
        assert_eq!(noisy_or([1.0, 1.0]), MAX_CONFIDENCE);
    }

    #[test]
    fn regulator_and_official_agree() {
        let m = one(&[
            item(
                "e017",
                "regulatory_status",
                "final authorisation",
                "https://registry.regulator.example/pa/nimbuspay",
                SourceType::Regulator,
                "2025-08-14",
                0.82,
            ),
            item(
                "e007",
                "licence status",
                "Final authorisation",
                "https://nimbuspay.example/about",
                SourceType::Official,
                "2026-07-01",
                0.91,
            ),
        ]);
        assert_eq!(m.field, Field::RegulatoryStatus);
        assert!((m.confidence - 0.98).abs() < 0.005, "{}", m.confidence);
        assert_eq!(m.outcome, Outcome::AcceptedOne);
        assert!(!m.uncertain && !m.capped);
        assert_eq!(m.origins, 2);
        let ids: BTreeSet<&str> = m
            .supporting
            .iter()
            .map(|s| s.evidence_id.as_str())
            .collect();
        assert_eq!(ids, BTreeSet::from(["e007", "e017"]));
    }

    #[test]
    fn one_blog_is_what_it_is() {
        let m = one(&[item(
            "e1",
            "pricing",
            "2.1% per transaction",
            "https://blog.example/p",
            SourceType::Blog,
            "2024-03-01",
            0.34,
        )]);
        assert_eq!(m.confidence, 0.34);
        assert_eq!(m.outcome, Outcome::Unresolved);
        assert!(m.uncertain);
    }

    #[test]
    fn a_syndicated_copy_counts_once() {
        let release = "https://nimbuspay.example/press/series-b";
        let copy = "https://wire.example/nimbuspay-series-b";
        let items = [
            item(
                "e1",
                "funding",
                "Series B, $40M",
                release,
                SourceType::PressRelease,
                "2025-11-03",
                0.7,
            ),
            item(
                "e2",
                "funding",
                "Series B, $40 million",
                copy,
                SourceType::Other,
                "2025-11-03",
                0.7,
            ),
        ];
        let origins = HashMap::from([
            (copy.to_string(), release.to_string()),
            (release.to_string(), release.to_string()),
        ]);
        let m = merge(&items, &origins, &opts()).remove(0);
        assert_eq!(m.confidence, 0.7, "the copy adds nothing");
        assert_eq!(m.origins, 1);
        assert_eq!(m.supporting.len(), 2, "but it stays in the provenance");
        let copy_support = m.supporting.iter().find(|s| s.url == copy).unwrap();
        assert_eq!(copy_support.origin_url, release);
        assert!(!copy_support.counted);
        // Without the copy map it would have looked like two sources.
        let naive = merge(&items, &HashMap::new(), &opts()).remove(0);
        assert!((naive.confidence - 0.91).abs() < 0.001);
        // Independent reporting does add confidence.
        let mut more = items.to_vec();
        more.push(item(
            "e3",
            "funding",
            "$40M Series B",
            "https://bizdaily.example/2025/11/04/nimbuspay",
            SourceType::News,
            "2025-11-04",
            0.6,
        ));
        let m = merge(&more, &origins, &opts()).remove(0);
        assert!((m.confidence - 0.88).abs() < 0.001, "{}", m.confidence);
        assert_eq!(m.origins, 2);
    }

    #[test]
    fn one_publisher_is_one_voice() {
        let m = one(&[
            item(
                "e1",
                "ceo",
                "Ananya Rao",
                "https://nimbuspay.example/about",
                SourceType::Official,
                "2026-07-01",
                0.8,
            ),
            item(
                "e2",
                "ceo",
                "Ananya Rao",
                "https://nimbuspay.example/press/new-ceo",
                SourceType::PressRelease,
                "2026-01-05",
                0.7,
            ),
        ]);
        assert_eq!(m.confidence, 0.8);
        assert_eq!(m.origins, 1);
    }

    #[test]
    fn a_ceo_change_is_kept_as_history() {
        let m = one(&[
            item(
                "e1",
                "ceo",
                "Rohit Mehra",
                "https://bizdaily.example/2024/05/01/x",
                SourceType::News,
                "2024-05-01",
                0.62,
            ),
            item(
                "e2",
                "ceo",
                "Rohit Mehra, CEO",
                "https://nimbuspay.example/blog/2023",
                SourceType::Official,
                "2023-09-01",
                0.6,
            ),
            item(
                "e3",
                "leadership",
                "Ananya Rao",
                "https://bizdaily.example/2026/01/08/new-ceo",
                SourceType::News,
                "2026-01-08",
                0.75,
            ),
            item(
                "e4",
                "CEO",
                "Ms. Ananya Rao, CEO since January 2026",
                "https://nimbuspay.example/about",
                SourceType::Official,
                "2026-07-01",
                0.85,
            ),
        ]);
        assert_eq!(m.field, Field::Ceo);
        assert_eq!(m.outcome, Outcome::TimeSeparated);
        assert_eq!(
            normalize_value(&m.value),
            "ananya rao ceo since january 2026"
        );
        assert_eq!(m.as_of.as_deref(), Some("2026-07-01"));
        assert_eq!(m.history.len(), 1);
        let old = &m.history[0];
        assert_eq!(old.status, ClusterStatus::TimeSeparated);
        assert!(old.normalized.starts_with("rohit mehra"));
        assert_eq!(old.supporting.len(), 2);
        assert!(m.conflicts.is_empty() && m.rejected.is_empty());
    }

    #[test]
    fn strong_disagreement_in_one_period_is_unresolved() {
        let m = one(&[
            item(
                "e1",
                "ceo",
                "Ananya Rao",
                "https://nimbuspay.example/about",
                SourceType::Official,
                "2026-07-01",
                0.85,
            ),
            item(
                "e2",
                "ceo",
                "Vikram Shah",
                "https://bizdaily.example/2026/07/10/ceo",
                SourceType::News,
                "2026-07-10",
                0.75,
            ),
        ]);
        assert_eq!(m.outcome, Outcome::Unresolved);
        assert!(m.uncertain);
        assert_eq!(m.value, "Vikram Shah", "the newest strong value is shown");
        assert_eq!(m.conflicts.len(), 1);
        assert_eq!(m.conflicts[0].status, ClusterStatus::Unresolved);
        assert!(m.note.contains("worth checking by hand"), "{}", m.note);
    }

    #[test]
    fn a_licence_from_one_blog_is_capped() {
        let blog = item(
            "e1",
            "licence status",
            "licence revoked",
            "https://rumours.example/nimbuspay",
            SourceType::Blog,
            "2026-10-01",
            0.5,
        );
        let m = one(std::slice::from_ref(&blog));
        assert_eq!(m.confidence, HIGH_STAKES_CAP);
        assert!(m.capped && m.uncertain);
        // Against the regulator it is rejected as weak.
        let m = one(&[
            blog.clone(),
            item(
                "e2",
                "regulatory_status",
                "final authorisation",
                "https://registry.regulator.example/pa/nimbuspay",
                SourceType::Regulator,
                "2025-08-14",
                0.82,
            ),
        ]);
        assert_eq!(normalize_value(&m.value), "final authorisation");
        assert_eq!(m.rejected.len(), 1);
        assert_eq!(m.rejected[0].status, ClusterStatus::RejectedWeak);
        assert!(m.rejected[0].capped);
        // Two independent origins lift the cap.
        let m = one(&[
            blog,
            item(
                "e3",
                "licence status",
                "licence revoked",
                "https://other-rumours.example/x",
                SourceType::Blog,
                "2026-10-02",
                0.5,
            ),
        ]);
        assert!(!m.capped);
        assert_eq!(m.confidence, 0.75);
        // A pricing claim from one blog is not high-stakes.
        let m = one(&[item(
            "e4",
            "pricing",
            "2%",
            "https://blog.example/x",
            SourceType::Blog,
            "2026-10-01",
            0.5,
        )]);
        assert!(!m.capped);
        assert_eq!(m.confidence, 0.5);
    }

    #[test]
    fn series_a_and_series_b_stay_apart() {
        let m = one(&[
            item(
                "e1",
                "funding",
                "Series A, $10M",
                "https://bizdaily.example/2022/a",
                SourceType::News,
                "2022-03-01",
                0.7,
            ),
            item(
                "e2",
                "funding",
                "Series B, $40M",
                "https://nimbuspay.example/press/b",
                SourceType::PressRelease,
                "2025-11-03",
                0.8,
            ),
            item(
                "e3",
                "funding",
                "Series B",
                "https://techwire.example/b",
                SourceType::News,
                "2025-11-04",
                0.7,
            ),
        ]);
        assert_eq!(normalize_value(&m.value), "series b 40m");
        assert_eq!(m.origins, 2);
        assert_eq!(m.history.len(), 1);
        assert_eq!(m.history[0].normalized, "series a 10m");
    }

    #[test]
    fn a_weak_old_price_is_rejected() {
        let m = one(&[
            item(
                "e1",
                "pricing",
                "1.9% per transaction",
                "https://nimbuspay.example/pricing",
                SourceType::Official,
                "2026-09-01",
                0.9,
            ),
            item(
                "e2",
                "pricing",
                "1.8% per transaction",
                "https://affiliate.example/2024/fees",
                SourceType::Blog,
                "2024-02-01",
                0.3,
            ),
        ]);
        assert_eq!(m.outcome, Outcome::AcceptedOne);
        assert_eq!(m.rejected.len(), 1);
        assert_eq!(m.rejected[0].normalized, "1.8% per transaction");
        assert!(
            m.note.contains("a weakly supported value set aside"),
            "{}",
            m.note
        );
    }

    #[test]
    fn counts_read_as_words() {
        assert_eq!(
            counted(1, "independent source", "independent sources"),
            "1 independent source"
        );
        assert_eq!(
            counted(3, "independent source", "independent sources"),
            "3 independent sources"
        );
        assert_eq!(counted(1, "another value", "other values"), "another value");
        assert_eq!(
            counted(2, "another value", "other values"),
            "2 other values"
        );
    }

    #[test]
    fn founding_year_disagreement_stays_visible() {
        let m = one(&[
            item(
                "e1",
                "founded",
                "2015",
                "https://nimbuspay.example/about",
                SourceType::Official,
                "2026-07-01",
                0.9,
            ),
            item(
                "e2",
                "founded",
                "2014",
                "https://registry.example/co/1",
                SourceType::Regulator,
                "2020-01-01",
                0.7,
            ),
        ]);
        assert_eq!(m.value, "2015");
        assert_eq!(m.outcome, Outcome::AcceptedOne);
        assert_eq!(m.conflicts.len(), 1);
        assert_eq!(m.conflicts[0].status, ClusterStatus::Contested);
    }

    #[test]
    fn sentence_values_resolve_by_their_dates() {
        // The offline model quotes sentences; the registry's history line is
        // dated by the page, the sentences by what they say.
        let mut items = vec![
            item(
                "e1",
                "certification",
                "The ColdChain Quality Council suspended the CQS-9 certificate of Halden Freight on 16 January 2025 and reinstated it on 12 May 2025.",
                "https://registry.coldchain-council.example/c/1",
                SourceType::Regulator,
                "2026-05-20",
                0.85,
            ),
            item(
                "e2",
                "certification",
                "The CQS-9 certification of Halden Freight had been suspended in January 2025, after an audit found gaps in temperature records at the Nagpur warehouse.",
                "https://haldenfreight.example/news/cqs9-reinstated",
                SourceType::PressRelease,
                "2025-05-12",
                0.6,
            ),
            item(
                "e3",
                "certification",
                "The ColdChain Quality Council suspended the ColdChain Quality Standard CQS-9 certification of Halden Freight on 16 January 2025, after a surveillance audit.",
                "https://coldchain-today.example/2025/01/20/x",
                SourceType::News,
                "2025-01-20",
                0.55,
            ),
        ];
        for i in &mut items {
            i.claim.event_date = i.source.published.clone();
        }
        let opts = MergeOptions::new(day("2026-11-29"), Some("Halden Freight"));
        let m = merge(&items, &HashMap::new(), &opts).remove(0);
        assert_eq!(m.supporting[0].evidence_id, "e1");
        assert_eq!(m.as_of.as_deref(), Some("2025-05-12"));
        assert_eq!(m.outcome, Outcome::TimeSeparated, "{m:#?}");
        assert_eq!(m.history.len(), 1);
        let ids: BTreeSet<&str> = m.history[0]
            .supporting
            .iter()
            .map(|s| s.evidence_id.as_str())
            .collect();
        assert_eq!(ids, BTreeSet::from(["e2", "e3"]));
    }

    #[test]
    fn a_sentence_filed_under_the_wrong_field_takes_no_part() {
        // The offline model quotes what it finds under the aspect it was
        // asked about; a newer on-time rate must not make the price history.
        let m = one(&[
            item(
                "e1",
                "pricing",
                "Halden Freight charges ₹44 per km for a full-truck-load trip, effective 1 April 2026.",
                "https://haldenfreight.example/rates",
                SourceType::Official,
                "2026-04-01",
                0.85,
            ),
            item(
                "e2",
                "pricing",
                "Halden Freight achieved an on-time delivery rate of 97.2% in FY2025-26.",
                "https://haldenfreight.example/about",
                SourceType::Official,
                "2026-09-10",
                0.93,
            ),
        ]);
        assert!(m.value.contains("₹44 per km"), "{m:#?}");
        assert_eq!(m.outcome, Outcome::AcceptedOne);
        assert_eq!(m.rejected.len(), 1);
        assert_eq!(m.rejected[0].status, ClusterStatus::NoValue);
        assert!(m.history.is_empty());
    }

    #[test]
    fn rejected_and_unaccepted_evidence_is_ignored() {
        let mut bad = item(
            "e1",
            "ceo",
            "Daniel Hughes",
            "https://nimbuspay.co.uk/about",
            SourceType::Official,
            "2026-01-01",
            0.9,
        );
        bad.accepted = false;
        let good = item(
            "e2",
            "ceo",
            "Ananya Rao",
            "https://nimbuspay.example/about",
            SourceType::Official,
            "2026-07-01",
            0.85,
        );
        let m = one(&[bad, good]);
        assert_eq!(m.value, "Ananya Rao");
        assert!(m.conflicts.is_empty());
        assert!(merge(&[], &HashMap::new(), &opts()).is_empty());
    }

    #[test]
    fn five_pages_naming_five_chief_executives_are_five_values() {
        let items: Vec<EvidenceItem> = (2..=6)
            .map(|n| {
                item(
                    &format!("e{n}"),
                    "leadership",
                    &format!("Person{n} is the chief executive officer of NimbusPay, the company confirmed."),
                    &format!("https://site{n}.example/about"),
                    SourceType::News,
                    "2026-07-01",
                    0.7,
                )
            })
            .collect();
        let m = one(&items);
        assert!(m.confidence < 0.8, "one page each: {}", m.confidence);
        assert_eq!(m.outcome, Outcome::Unresolved);
        assert!(m.uncertain);
        assert_eq!(m.conflicts.len(), 4, "{m:#?}");
        let named: BTreeSet<String> = std::iter::once(m.value.clone())
            .chain(m.conflicts.iter().map(|c| c.value.clone()))
            .collect();
        assert_eq!(named.len(), 5);
    }

    #[test]
    fn fees_of_different_scopes_are_not_history_of_one_another() {
        let merged = merge(
            &[
                item(
                    "e1",
                    "pricing",
                    "NimbusPay charges a standard fee of 1.9% per domestic card or UPI transaction, with no setup fee.",
                    "https://nimbuspay.example/pricing",
                    SourceType::Official,
                    "2026-08-01",
                    0.9,
                ),
                item(
                    "e2",
                    "pricing",
                    "NimbusPay charges 3.4% per international card transaction, including currency conversion.",
                    "https://nimbuspay.example/pricing",
                    SourceType::Official,
                    "2026-08-01",
                    0.9,
                ),
                item(
                    "e3",
                    "pricing",
                    "NimbusPay charges 2.4% per domestic card or UPI transaction, with no setup fee.",
                    "https://news.example/2023/fees",
                    SourceType::News,
                    "2023-04-12",
                    0.7,
                ),
            ],
            &HashMap::new(),
            &opts(),
        );
        assert_eq!(merged.len(), 2, "{merged:#?}");
        let main = &merged[0];
        assert_eq!(main.key, "pricing");
        assert!(main.value.contains("1.9%"));
        assert_eq!(main.history.len(), 1);
        assert!(main.history[0].value.contains("2.4%"));
        assert!(
            main.conflicts
                .iter()
                .chain(&main.history)
                .all(|c| !c.value.contains("3.4%"))
        );
        assert_eq!(merged[1].key, "pricing:international");
        assert_eq!(merged[1].subtopic, "international");
        assert!(merged[1].value.contains("3.4%"));
    }

    #[test]
    fn a_policy_is_not_a_disputed_incident() {
        let merged = merge(
            &[
                item(
                    "e1",
                    "security incidents",
                    "On 20 May 2025, NimbusPay disclosed that a misconfigured storage bucket had exposed merchant invoice PDFs to the public internet.",
                    "https://nimbuspay.example/security/incident",
                    SourceType::Official,
                    "2025-05-20",
                    0.85,
                ),
                item(
                    "e2",
                    "security incidents",
                    "NimbusPay will notify affected merchants without undue delay if a security incident affects merchant data.",
                    "https://nimbuspay.example/legal/terms",
                    SourceType::Official,
                    "2026-07-01",
                    0.8,
                ),
            ],
            &HashMap::new(),
            &opts(),
        );
        let main = &merged[0];
        assert!(main.value.contains("storage bucket"), "{merged:#?}");
        assert!(main.conflicts.is_empty(), "{main:#?}");
        assert_eq!(merged[1].subtopic, "policy");
    }

    #[test]
    fn aspects_outside_the_vocabulary_are_fields_of_their_own() {
        let o = MergeOptions::new(day("2026-11-01"), None)
            .with_aspects(&["which cities have adopted it", "when did it take effect"]);
        let merged = merge(
            &[
                item(
                    "e1",
                    "which cities have adopted it",
                    "Pune and Nagpur",
                    "https://a.example/1",
                    SourceType::News,
                    "2026-01-01",
                    0.7,
                ),
                item(
                    "e2",
                    "when did it take effect",
                    "1 March 2025",
                    "https://b.example/1",
                    SourceType::Official,
                    "2025-03-01",
                    0.8,
                ),
                item(
                    "e3",
                    "when did it take effect",
                    "2025-03-01",
                    "https://c.example/1",
                    SourceType::News,
                    "2025-03-02",
                    0.7,
                ),
            ],
            &HashMap::new(),
            &o,
        );
        let keys: BTreeSet<&str> = merged.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(
            keys,
            BTreeSet::from(["which_cities_have_adopted_it", "when_did_it_take_effect"])
        );
        let when = merged
            .iter()
            .find(|m| m.key == "when_did_it_take_effect")
            .unwrap();
        assert_eq!(
            when.origins, 2,
            "two spellings of one date are one value: {when:#?}"
        );
        assert!(when.conflicts.is_empty());
        assert_eq!(when.label, "when did it take effect");
    }

    #[test]
    fn output_serialises_for_evidence_json() {
        let m = one(&[item(
            "e1",
            "ceo",
            "Ananya Rao",
            "https://nimbuspay.example/about",
            SourceType::Official,
            "2026-07-01",
            0.85,
        )]);
        let v = serde_json::to_value(&m).unwrap();
        assert_eq!(v["field"], "ceo");
        assert_eq!(v["outcome"], "accepted_one");
        assert_eq!(v["supporting"][0]["evidence_id"], "e1");
        assert_eq!(v["supporting"][0]["source_type"], "official");
        let back: MergedField = serde_json::from_value(v).unwrap();
        assert_eq!(back, m);
    }
}
