//! The offline model: a deterministic, extractive implementation of
//! [`ChatModel`] that drives the same orchestrator and tools as a real model.
//! It reads its own transcript each turn (so it is stateless and replayable),
//! plans aspects from the question, delegates them, searches, reads, and
//! submits findings whose quotes are verbatim sentences of the pages it read.
//! Nothing in it knows the embedded corpus.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use async_trait::async_trait;
use rust_stemmers::{Algorithm, Stemmer};
use serde_json::{Value, json};

use super::{
    ChatModel, ChatRequest, ChatResponse, Message, ModelError, ModelSink, Role, ToolCall, Usage,
};
use crate::engine::prompts;
use crate::engine::subresearcher::aspect_of;
use crate::engine::tools::Findings;
use crate::evidence::{quotes, sentences};
use crate::protocol::EntityAnchors;
use crate::report;
use crate::report::evidence_view::FieldView;

pub const OFFLINE_SLUG: &str = "dra/offline-extractive";

/// Pages fetched per search.
const FETCH_PER_SEARCH: usize = 5;
/// Extra read_source chunks per page.
const MAX_READS_PER_PAGE: usize = 3;
/// Findings per aspect.
const MAX_FINDINGS: usize = 5;
/// Sentences taken from one page.
const PER_PAGE: usize = 2;

#[derive(Debug, Default, Clone, Copy)]
pub struct OfflineModel;

#[async_trait]
impl ChatModel for OfflineModel {
    fn slug(&self) -> &str {
        OFFLINE_SLUG
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        _sink: &dyn ModelSink,
    ) -> Result<ChatResponse, ModelError> {
        let has = |name: &str| request.tools.iter().any(|t| t.name == name);
        let t = Transcript::read(&request.messages);
        let (thinking, calls) = if has("submit_report") {
            orchestrator_turn(&t)
        } else if has("submit_findings") {
            researcher_turn(&t)
        } else {
            ("No tools offered; nothing to do.".to_string(), vec![])
        };
        let tool_calls = calls
            .into_iter()
            .enumerate()
            .map(|(i, (name, arguments))| ToolCall {
                id: format!("call_{}_{}", t.turns, i + 1),
                name: name.to_string(),
                arguments,
            })
            .collect();
        Ok(ChatResponse {
            content: String::new(),
            tool_calls,
            thinking: Some(thinking),
            usage: Usage::default(),
            model: OFFLINE_SLUG.to_string(),
        })
    }
}

/// A tool call of an earlier turn and its result.
struct PastCall<'a> {
    name: &'a str,
    args: &'a Value,
    result: Option<&'a str>,
}

struct Transcript<'a> {
    user: &'a str,
    calls: Vec<PastCall<'a>>,
    turns: usize,
}

impl<'a> Transcript<'a> {
    fn read(messages: &'a [Message]) -> Self {
        let user = messages
            .iter()
            .find(|m| m.role == Role::User)
            .map(|m| m.content.as_str())
            .unwrap_or("");
        let results: HashMap<&str, &str> = messages
            .iter()
            .filter(|m| m.role == Role::Tool)
            .filter_map(|m| Some((m.tool_call_id.as_deref()?, m.content.as_str())))
            .collect();
        let mut calls = Vec::new();
        let mut turns = 0;
        for m in messages.iter().filter(|m| m.role == Role::Assistant) {
            turns += 1;
            for c in &m.tool_calls {
                calls.push(PastCall {
                    name: &c.name,
                    args: &c.arguments,
                    result: results.get(c.id.as_str()).copied(),
                });
            }
        }
        Transcript { user, calls, turns }
    }

    fn called(&self, name: &str) -> impl Iterator<Item = &PastCall<'a>> {
        self.calls.iter().filter(move |c| c.name == name)
    }
}

fn field<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.strip_prefix(label))
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn anchors_of(text: &str) -> EntityAnchors {
    let list = |label: &str, sep: char| {
        field(text, label)
            .map(|s| {
                s.split(sep)
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    EntityAnchors {
        name: field(text, "Entity:").map(String::from),
        domain: field(text, "Official domain:").map(String::from),
        country: field(text, "Country:").map(String::from),
        city: field(text, "City:").map(String::from),
        industry: list("Industry:", ','),
        exclude: list("Exclude look-alikes:", ';'),
    }
}

// ---------------------------------------------------------------- planning

/// Aspects to research, from the question alone.
pub fn plan_aspects(question: &str, entity: Option<&str>) -> Vec<String> {
    let q = question.trim();
    let lower = q.to_lowercase();
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
    let mut best: Option<Vec<String>> = None;
    for cue in CUES {
        let Some(pos) = lower.find(cue) else { continue };
        let tail = &q[pos + cue.len()..];
        let tail = tail.split(['?', '.', '\n']).next().unwrap_or(tail);
        let items = split_list(tail);
        if items.len() >= 2 && best.as_ref().is_none_or(|b| items.len() > b.len()) {
            best = Some(items);
        }
    }
    if let Some(items) = best {
        return items;
    }
    const DILIGENCE: &[&str] = &[
        "reliable",
        "partner",
        "vendor",
        "supplier",
        "due diligence",
        "trustworthy",
        "trust",
        "safe to",
    ];
    if DILIGENCE.iter().any(|w| lower.contains(w)) {
        return [
            "leadership",
            "licence and regulatory status",
            "funding",
            "reliability and incidents",
            "pricing",
            "customer sentiment",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
    }
    let mut core = q.trim_end_matches(['?', '.', '!']).to_string();
    if let Some(e) = entity {
        core = core.replace(e, " ");
    }
    let core = core.split_whitespace().collect::<Vec<_>>().join(" ");
    vec![if core.is_empty() { q.to_string() } else { core }]
}

fn split_list(tail: &str) -> Vec<String> {
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

fn orchestrator_turn(t: &Transcript) -> (String, Vec<(&'static str, Value)>) {
    let question = field(t.user, "Research question:")
        .unwrap_or(t.user)
        .to_string();
    let anchors = anchors_of(t.user);
    let Some(todos_call) = t.called("write_todos").last() else {
        let aspects = plan_aspects(&question, anchors.name.as_deref());
        let todos: Vec<Value> = aspects
            .iter()
            .map(|a| json!({"content": a, "status": "pending"}))
            .collect();
        return (
            format!(
                "Planning {} aspect(s) from the question: {}.",
                aspects.len(),
                aspects.join("; ")
            ),
            vec![("write_todos", json!({ "todos": todos }))],
        );
    };
    let aspects: Vec<String> = todos_call
        .args
        .get("todos")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|t| t.get("content").and_then(Value::as_str).or(t.as_str()))
                .map(String::from)
                .collect()
        })
        .unwrap_or_default();
    if t.called("task").next().is_none() {
        let calls = aspects
            .iter()
            .map(|a| {
                (
                    "task",
                    json!({"description": prompts::task_description(a, &question, &anchors), "subagent_type": "researcher"}),
                )
            })
            .collect();
        return (
            format!("Delegating {} aspect(s) in parallel.", aspects.len()),
            calls,
        );
    }
    let units: Vec<Findings> = t
        .called("task")
        .map(|c| {
            let aspect = c
                .args
                .get("description")
                .and_then(Value::as_str)
                .map(aspect_of)
                .unwrap_or_default();
            let mut f: Findings = c
                .result
                .and_then(|r| serde_json::from_str(unwrap_spotlight(r)).ok())
                .unwrap_or_default();
            if f.aspect.is_empty() {
                f.aspect = aspect;
            }
            f
        })
        .collect();
    // Before writing, the merged view of the evidence.
    let Some(review) = t.called("review_evidence").last() else {
        return (
            "Reviewing the merged evidence before writing.".to_string(),
            vec![("review_evidence", json!({}))],
        );
    };
    let merged: Vec<FieldView> = review
        .result
        .and_then(|r| serde_json::from_str::<Value>(unwrap_spotlight(r)).ok())
        .and_then(|v| serde_json::from_value(v["fields"].clone()).ok())
        .unwrap_or_default();
    let markdown = report::draft_from_merged(&question, anchors.name.as_deref(), &units, &merged);
    let n: usize = units.iter().map(|u| u.findings.len()).sum();
    (
        format!("Writing the report from {n} verified finding(s)."),
        vec![("submit_report", json!({ "markdown": markdown }))],
    )
}

// ---------------------------------------------------------------- research

/// Words that widen an aspect to the vocabulary sources use for it.
const THESAURUS: &[(&[&str], &[&str])] = &[
    (
        &[
            "leadership",
            "ceo",
            "management",
            "founder",
            "executive",
            "leader",
            "director",
            "boss",
        ],
        &[
            "ceo",
            "chief executive",
            "founder",
            "co-founder",
            "managing director",
            "appointed",
            "leadership",
            "chairman",
            "president",
            "succeeds",
            "stepped down",
        ],
    ),
    (
        &[
            "licence",
            "license",
            "regulatory",
            "regulation",
            "authorisation",
            "authorization",
            "compliance",
            "certification",
            "accreditation",
            "permit",
        ],
        &[
            "licence",
            "license",
            "authorisation",
            "authorization",
            "approval",
            "registration",
            "registered",
            "regulator",
            "certification",
            "certified",
            "accreditation",
            "suspended",
            "reinstated",
            "permit",
            "compliance",
        ],
    ),
    (
        &[
            "funding",
            "investment",
            "investors",
            "capital",
            "financing",
            "raised",
            "valuation",
        ],
        &[
            "raised",
            "funding",
            "series",
            "round",
            "investor",
            "investment",
            "valuation",
            "led",
            "seed",
            "crore",
            "million",
        ],
    ),
    (
        &[
            "reliability",
            "uptime",
            "outage",
            "outages",
            "availability",
            "performance",
            "delivery",
            "downtime",
        ],
        &[
            "uptime",
            "outage",
            "downtime",
            "availability",
            "reliability",
            "on-time",
            "delivery",
            "disruption",
            "incident",
            "status",
        ],
    ),
    (
        &[
            "security",
            "breach",
            "incident",
            "incidents",
            "privacy",
            "data",
        ],
        &[
            "security",
            "breach",
            "exposed",
            "vulnerability",
            "leak",
            "disclosed",
            "attack",
            "misconfigured",
            "incident",
        ],
    ),
    (
        &[
            "pricing", "price", "prices", "fees", "fee", "cost", "costs", "rates", "rate", "tariff",
        ],
        &[
            "price", "pricing", "fee", "fees", "cost", "rate", "charge", "tariff", "discount",
            "plan", "per",
        ],
    ),
    (
        &[
            "sentiment",
            "reviews",
            "review",
            "reputation",
            "customers",
            "customer",
            "satisfaction",
            "merchant",
            "merchants",
        ],
        &[
            "review",
            "rating",
            "rated",
            "customer",
            "merchant",
            "complaint",
            "praise",
            "satisfaction",
            "feedback",
            "stars",
        ],
    ),
    (
        &["fleet", "trucks", "vehicles", "aircraft", "vessels"],
        &[
            "fleet", "trucks", "vehicles", "reefers", "aircraft", "vessels",
        ],
    ),
    (
        &[
            "capacity",
            "scale",
            "size",
            "footprint",
            "warehouses",
            "facilities",
        ],
        &[
            "warehouses",
            "capacity",
            "facilities",
            "locations",
            "sites",
            "pallet",
        ],
    ),
    (
        &["history", "background", "overview", "founded", "origin"],
        &[
            "founded",
            "established",
            "headquartered",
            "based",
            "history",
            "started",
        ],
    ),
];

const STOP: &[&str] = &[
    "the", "and", "for", "with", "its", "their", "of", "in", "on", "to", "a", "an", "is", "are",
    "what", "how", "who", "which", "status", "current", "today", "any", "all",
];

struct Terms {
    stems: BTreeSet<String>,
    phrases: Vec<String>,
    /// What a sentence stating this aspect's value contains.
    values: Vec<ValueKind>,
}

/// The shape of a value: a sentence that has one states a fact; a sentence
/// that only mentions the topic ("see our pricing page") does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    Person,
    Status,
    Money,
    Percent,
    Rating,
    Count,
    Year,
}

/// The value kinds of each thesaurus row, in the same order (a test checks
/// the two tables have the same length).
const ROW_VALUES: &[&[ValueKind]] = &[
    &[ValueKind::Person],
    &[ValueKind::Status],
    &[ValueKind::Money],
    &[ValueKind::Percent],
    &[],
    &[ValueKind::Percent, ValueKind::Money],
    &[ValueKind::Rating],
    &[ValueKind::Count],
    &[ValueKind::Count],
    &[ValueKind::Year],
];

fn has_value(kind: ValueKind, sentence: &str, entity: &str) -> bool {
    use std::sync::LazyLock;
    static MONEY: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::re(
            r"(?i)([$€£₹]\s?\d|\b(rs\.?|inr|usd|eur|gbp)\s?\d|\d\s?(million|billion|crore|lakh|m|bn)\b)",
        )
    });
    static PERCENT: LazyLock<regex::Regex> =
        LazyLock::new(|| crate::re(r"\d(\.\d+)?\s?(%|per\s?cent)"));
    static RATING: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::re(r"(?i)\d(\.\d)?\s?(out of|/)\s?(5|10)\b|\d(\.\d)?\s?stars?\b|rated\s+\d")
    });
    static COUNT: LazyLock<regex::Regex> = LazyLock::new(|| crate::re(r"\b\d[\d,]*\s+[a-z]"));
    static YEAR: LazyLock<regex::Regex> = LazyLock::new(|| crate::re(r"\b(19|20)\d\d\b"));
    static STATUS: LazyLock<regex::Regex> = LazyLock::new(|| {
        crate::re(
            r"(?i)\b(granted|authori[sz]ed|authori[sz]ation|approved|approval|licensed|registered|certified|valid|suspended|reinstated|revoked|cancelled|expired|pending|renewed|accredited)\b",
        )
    });
    match kind {
        ValueKind::Money => MONEY.is_match(sentence),
        ValueKind::Percent => PERCENT.is_match(sentence),
        ValueKind::Rating => RATING.is_match(sentence),
        ValueKind::Count => COUNT.is_match(sentence),
        ValueKind::Year => YEAR.is_match(sentence),
        ValueKind::Status => STATUS.is_match(sentence),
        ValueKind::Person => {
            // Two capitalised words in a row that are not the entity's name.
            let entity_words: Vec<&str> = entity.split_whitespace().collect();
            let words: Vec<&str> = sentence
                .split(|c: char| !(c.is_alphanumeric() || c == '-'))
                .filter(|w| !w.is_empty())
                .collect();
            words.windows(2).enumerate().any(|(i, w)| {
                let cap = |s: &str| {
                    s.chars().next().is_some_and(char::is_uppercase)
                        && s.chars().skip(1).all(|c| c.is_lowercase())
                };
                i > 0
                    && cap(w[0])
                    && cap(w[1])
                    && !entity_words.contains(&w[0])
                    && !entity_words.contains(&w[1])
            })
        }
    }
}

fn stemmer() -> Stemmer {
    Stemmer::create(Algorithm::English)
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
}

fn terms_for(aspect: &str) -> Terms {
    let st = stemmer();
    let aspect_words: Vec<String> = words(aspect)
        .filter(|w| !STOP.contains(&w.as_str()) && w.len() > 2)
        .collect();
    let mut stems: BTreeSet<String> = aspect_words
        .iter()
        .map(|w| st.stem(w).into_owned())
        .collect();
    let mut phrases = Vec::new();
    let mut values = Vec::new();
    for (row, (keys, expansions)) in THESAURUS.iter().enumerate() {
        if aspect_words.iter().any(|w| keys.contains(&w.as_str())) {
            for v in ROW_VALUES.get(row).copied().unwrap_or_default() {
                if !values.contains(v) {
                    values.push(*v);
                }
            }
            for e in *expansions {
                if e.contains(' ') {
                    phrases.push(e.to_string());
                } else {
                    stems.insert(st.stem(e).into_owned());
                }
            }
        }
    }
    Terms {
        stems,
        phrases,
        values,
    }
}

fn expansion_words(aspect: &str) -> Vec<&'static str> {
    let aspect_words: Vec<String> = words(aspect).collect();
    THESAURUS
        .iter()
        .filter(|(keys, _)| aspect_words.iter().any(|w| keys.contains(&w.as_str())))
        .flat_map(|(_, e)| e.iter().copied().filter(|w| !w.contains(' ')))
        .filter(|w| !aspect_words.iter().any(|a| a == w))
        .take(4)
        .collect()
}

/// Strips the spotlight delimiters from untrusted text.
fn unwrap_spotlight(text: &str) -> &str {
    let text = text.trim();
    match (text.find(">>\n"), text.rfind("\n<</untrusted-data")) {
        (Some(a), Some(b)) if text.starts_with("<<untrusted-data") && a + 3 <= b => &text[a + 3..b],
        _ => text,
    }
}

#[derive(Default)]
struct PageRead {
    number: usize,
    title: String,
    source_type: String,
    as_of: Option<String>,
    text: String,
    next_offset: Option<usize>,
    reads: usize,
}

fn researcher_turn(t: &Transcript) -> (String, Vec<(&'static str, Value)>) {
    let aspect = aspect_of(t.user);
    let anchors = anchors_of(t.user);
    let entity = anchors.name.clone().unwrap_or_default();

    // What was read so far, per URL, in order of first fetch.
    let mut pages: BTreeMap<String, PageRead> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut attempted: BTreeSet<String> = BTreeSet::new();
    for c in &t.calls {
        if c.name != "fetch_url" && c.name != "read_source" {
            continue;
        }
        let Some(url) = c.args.get("url").and_then(Value::as_str) else {
            continue;
        };
        attempted.insert(url.to_string());
        let Some(v) = c
            .result
            .and_then(|r| serde_json::from_str::<Value>(unwrap_spotlight(r)).ok())
        else {
            continue;
        };
        if v.get("status").and_then(Value::as_str) != Some("accepted") {
            continue;
        }
        let real_url = v
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or(url)
            .to_string();
        attempted.insert(real_url.clone());
        if !pages.contains_key(&real_url) {
            order.push(real_url.clone());
        }
        let p = pages.entry(real_url).or_default();
        p.number = v.get("source").and_then(Value::as_u64).unwrap_or(0) as usize;
        p.title = v
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        p.source_type = v
            .get("source_type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        p.as_of = v
            .get("updated")
            .and_then(Value::as_str)
            .or_else(|| v.get("published").and_then(Value::as_str))
            .map(String::from);
        let chunk = unwrap_spotlight(v.get("text").and_then(Value::as_str).unwrap_or(""));
        if !p.text.is_empty() {
            p.text.push('\n');
        }
        p.text.push_str(chunk);
        p.next_offset = v
            .get("next_offset")
            .and_then(Value::as_u64)
            .map(|n| n as usize);
        if c.name == "read_source" {
            p.reads += 1;
        }
    }

    // 1. Read on where a page was cut.
    let reads: Vec<(&'static str, Value)> = order
        .iter()
        .filter_map(|u| {
            let p = &pages[u];
            let off = p.next_offset?;
            (p.reads < MAX_READS_PER_PAGE)
                .then(|| ("read_source", json!({"url": u, "offset": off})))
        })
        .collect();
    if !reads.is_empty() {
        return (
            format!("Reading further into {} long page(s).", reads.len()),
            reads,
        );
    }

    let searches: Vec<&PastCall> = t.called("web_search").collect();
    let first_query = if entity.is_empty() {
        aspect.clone()
    } else {
        format!("{entity} {aspect}")
    };
    if searches.is_empty() {
        return (
            format!("Searching for {aspect}."),
            vec![(
                "web_search",
                json!({"query": first_query, "max_results": 6}),
            )],
        );
    }

    // 2. Fetch the top results of the latest search not read yet.
    if let Some(latest) = searches.last() {
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
        if !urls.is_empty() {
            let n = urls.len();
            return (
                format!("Reading {n} page(s) from the search results."),
                urls.into_iter()
                    .map(|u| ("fetch_url", json!({"url": u})))
                    .collect(),
            );
        }
    }

    let findings = extract(&aspect, &entity, &order, &pages);

    // 3. One more search from another angle: the words sources use for the aspect.
    if searches.len() == 1 {
        let extra = expansion_words(&aspect);
        let query = format!("{first_query} {}", extra.join(" "));
        if !extra.is_empty() || findings.len() < 3 {
            return (
                format!(
                    "{} finding(s) so far; searching again from another angle.",
                    findings.len()
                ),
                vec![(
                    "web_search",
                    json!({"query": query.trim(), "max_results": 8}),
                )],
            );
        }
    }

    // 4. Submit, dropping what a bounce named.
    let bounced: BTreeSet<usize> = t
        .called("submit_findings")
        .last()
        .and_then(|c| c.result)
        .map(|r| {
            r.lines()
                .filter_map(|l| l.trim_start_matches("- ").strip_prefix("finding "))
                .filter_map(|l| l.split(':').next()?.trim().parse().ok())
                .collect()
        })
        .unwrap_or_default();
    let kept: Vec<&Candidate> = findings
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
        .map(|f| {
            json!({
                "claim": f.sentence,
                "quote": f.sentence,
                "url": f.url,
                "field": aspect,
                "as_of": f.as_of,
            })
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
    (
        summary.clone(),
        vec![(
            "submit_findings",
            json!({"summary": summary, "findings": list, "gaps": gaps}),
        )],
    )
}

struct Candidate {
    sentence: String,
    url: String,
    as_of: Option<String>,
    score: f64,
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

/// The best sentences about an aspect, verbatim, one origin per sentence.
fn extract(
    aspect: &str,
    entity: &str,
    order: &[String],
    pages: &BTreeMap<String, PageRead>,
) -> Vec<Candidate> {
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let today = today.as_str();
    let terms = terms_for(aspect);
    let st = stemmer();
    let entity_lower = entity.to_lowercase();
    // Sentence frequency of each term over everything read: a term in every
    // sentence ("merchant" on a payments site) says little about the aspect.
    let mut n_sentences = 0usize;
    let mut df: HashMap<&str, usize> = HashMap::new();
    for url in order {
        for s in sentences::split(&pages[url].text) {
            n_sentences += 1;
            let stems: BTreeSet<String> = words(s).map(|w| st.stem(&w).into_owned()).collect();
            let lower = s.to_lowercase();
            for t in terms.stems.iter().filter(|t| stems.contains(*t)) {
                *df.entry(t.as_str()).or_default() += 1;
            }
            for ph in terms
                .phrases
                .iter()
                .filter(|ph| lower.contains(ph.as_str()))
            {
                *df.entry(ph.as_str()).or_default() += 1;
            }
        }
    }
    let weight = |term: &str| {
        let d = df.get(term).copied().unwrap_or(0) as f64;
        (1.0 + ((n_sentences as f64 + 1.0) / (d + 1.0)).ln() / 2.0).clamp(0.3, 3.0)
    };
    let mut all: Vec<Candidate> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for url in order {
        let p = &pages[url];
        let mut local: Vec<Candidate> = Vec::new();
        for s in sentences::split(&p.text) {
            let n_words = s.split_whitespace().count();
            if !(5..=70).contains(&n_words) || !s.chars().any(char::is_alphabetic) {
                continue;
            }
            let lower = s.to_lowercase();
            let stems: BTreeSet<String> = words(s).map(|w| st.stem(&w).into_owned()).collect();
            let hits: f64 = terms
                .stems
                .iter()
                .filter(|t| stems.contains(*t))
                .map(|t| weight(t))
                .chain(
                    terms
                        .phrases
                        .iter()
                        .filter(|ph| lower.contains(ph.as_str()))
                        .map(|ph| weight(ph)),
                )
                .sum();
            if hits == 0.0 {
                continue;
            }
            let mut score = hits;
            if !entity_lower.is_empty() && lower.contains(&entity_lower) {
                score += 0.5;
            }
            if s.chars().any(|c| c.is_ascii_digit()) {
                score += 0.3;
            }
            if !terms.values.is_empty() {
                // A sentence without the kind of value the aspect asks for is weak, however on-topic.
                score *= if terms.values.iter().any(|&k| has_value(k, s, entity)) {
                    1.6
                } else {
                    0.5
                };
            }
            // Conditions and possibilities ("if a breach affects...", "can be checked") are not facts.
            let padded = format!(" {lower} ");
            if [
                " if ", " can be ", " may ", " could ", " would ", " should ", " unless ",
            ]
            .iter()
            .any(|m| padded.contains(m))
            {
                score -= 1.0;
            }
            if !s.ends_with(['.', '!', '?', '"', ')']) {
                score -= 0.75;
            }
            // A sentence that points elsewhere ("full report at x.example/y") states no fact itself.
            if s.split_whitespace()
                .any(|w| w.contains('/') && w.contains('.'))
            {
                continue;
            }
            if score < 1.0 {
                continue;
            }
            score *=
                authority(&p.source_type) * (0.75 + 0.25 * freshness(p.as_of.as_deref(), today));
            local.push(Candidate {
                sentence: s.to_string(),
                url: url.clone(),
                as_of: p.as_of.clone(),
                score,
            });
        }
        local.sort_by(|a, b| b.score.total_cmp(&a.score));
        for c in local.into_iter().take(PER_PAGE) {
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
    fn plans_enumerated_aspects() {
        let a = plan_aspects(
            "Is PadmaPay (Kochi, India) a reliable payment-gateway partner for our D2C startup today? Check leadership, licence status, funding, reliability, security incidents, pricing and merchant sentiment.",
            Some("PadmaPay"),
        );
        assert_eq!(
            a,
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
    fn plans_a_checklist_for_diligence_and_the_core_otherwise() {
        assert_eq!(
            plan_aspects("Is Acme a reliable vendor?", Some("Acme")).len(),
            6
        );
        assert_eq!(
            plan_aspects("Who runs Acme Corp?", Some("Acme Corp")),
            vec!["Who runs"]
        );
    }

    #[test]
    fn every_thesaurus_row_has_its_value_kinds() {
        assert_eq!(THESAURUS.len(), ROW_VALUES.len());
    }

    #[test]
    fn unwraps_spotlight() {
        assert_eq!(
            unwrap_spotlight("<<untrusted-data ab12>>\nhello\n<</untrusted-data ab12>>"),
            "hello"
        );
        assert_eq!(unwrap_spotlight("plain"), "plain");
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
        let f = extract("leadership", "Acme", &["u1".to_string()], &pages);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].sentence,
            "Acme appointed Jane Doe as chief executive officer in 2026."
        );
    }
}
