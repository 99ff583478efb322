//! Evidence: cleaning pages, the injection tripwire, the identity gate,
//! verbatim quote checks, and the records that end up in evidence.json;
//! then the claim fields ([`fields`]), reliability scores ([`score`]),
//! copies ([`dedup`]) and the merge into knowledge ([`merge`], with
//! [`values`] for comparing claim values).

pub mod category;
pub mod clean;
pub mod dedup;
pub mod extract;
pub mod fields;
mod finding;
pub mod identity;
pub mod injection;
mod invisible;
pub mod merge;
pub mod metadata;
pub mod normalize;
#[cfg(test)]
mod proptests;
pub mod quotes;
pub mod score;
pub mod sentences;
pub mod structure;
pub mod values;

use serde::{Deserialize, Serialize};

pub use crate::document::{SourceType, infer_source_type};
pub use fields::{Field, field_for};
pub use finding::{Finding, Findings};

use crate::document::{ContentType, RawDocument};
use crate::protocol::{EntityAnchors, Verdict};
use identity::IdentityCheck;
use injection::InjectionHit;

/// A page as the engine stores it after cleaning and judging. Only accepted
/// pages are ever shown to a model.
#[derive(Debug, Clone, Serialize)]
pub struct Page {
    pub url: String,
    pub title: String,
    pub domain: String,
    pub source_type: SourceType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    /// Authors and publisher the page names (front matter, JSON-LD, meta).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub publisher: Option<String>,
    pub retrieved: String,
    pub verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub identity: IdentityCheck,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub injection: Vec<InjectionHit>,
    /// Hiding techniques found (the hidden text itself is never kept).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
    /// The cleaned full text (capped).
    #[serde(skip)]
    pub text: String,
}

/// Whether a document carries instructions aimed at AI agents anywhere
/// (the same scan [`assess`] quarantines on): a search backend that holds
/// the whole page withholds its snippet and title before any model sees
/// a window of it.
pub fn carries_instructions(raw: &RawDocument) -> bool {
    let cleaned = match raw.content_type {
        ContentType::Html => clean::clean_html(&raw.content),
        ContentType::Markdown | ContentType::Plain => clean::clean_text(&raw.content),
    };
    !injection::scan_page(&cleaned).is_empty()
        || raw
            .title
            .as_deref()
            .is_some_and(|t| !injection::scan_text(t).is_empty())
}

/// The most text stored per page.
pub const MAX_STORED_CHARS: usize = 120_000;

/// Cleans and judges a raw document: quarantine for instructions aimed at AI
/// agents, rejection for a failed identity gate, else accepted.
pub fn assess(raw: &RawDocument, anchors: &EntityAnchors, retrieved: &str) -> Page {
    assess_keeping(raw, anchors, retrieved, MAX_STORED_CHARS)
}

/// [`assess`] keeping up to `max_chars` of the text: a large tool result
/// offloaded to a file is stored whole, so quotes from any part verify.
pub fn assess_keeping(
    raw: &RawDocument,
    anchors: &EntityAnchors,
    retrieved: &str,
    max_chars: usize,
) -> Page {
    let cleaned = match raw.content_type {
        ContentType::Html => clean::clean_html(&raw.content),
        ContentType::Markdown | ContentType::Plain => clean::clean_text(&raw.content),
    };
    let title = raw
        .title
        .clone()
        .or_else(|| cleaned.title.clone())
        .unwrap_or_else(|| raw.url.clone());
    let source_type = raw
        .source_type
        .or_else(|| cleaned.source_type.as_deref().and_then(SourceType::parse))
        .unwrap_or_else(|| infer_source_type(&raw.url, &title, anchors.domain.as_deref()));
    let mut injection = injection::scan_page(&cleaned);
    // A title is text a model reads too.
    for pattern in injection::scan_text(&title) {
        let hit = injection::InjectionHit {
            pattern,
            location: "title".into(),
        };
        if !injection.contains(&hit) {
            injection.push(hit);
        }
    }
    let mut hidden: Vec<String> = cleaned
        .hidden
        .iter()
        .map(|h| h.technique.to_string())
        .collect();
    hidden.dedup();
    // What is stored and quoted is the article (readability) when there is
    // one, else every visible word; both come from the hidden-free page.
    let main = match raw.content_type {
        ContentType::Html => crate::evidence::extract::article_text(&cleaned.visible_html),
        ContentType::Markdown | ContentType::Plain => None,
    };
    let text: String = main
        .as_deref()
        .unwrap_or(&cleaned.text)
        .chars()
        .take(max_chars)
        .collect();
    // What the markup says the page is about (category, country, legal
    // name), read only when there is an entity to hold it against.
    let signals = match (anchors.name.as_deref(), raw.content_type) {
        (Some(name), ContentType::Html) => {
            category::read_html(&raw.content, &category::split_legal_form(name).0)
        }
        _ => category::PageSignals::default(),
    };
    let identity = identity::check_with(anchors, &raw.url, &title, &text, &signals);
    let (verdict, reason) = if !injection.is_empty() {
        let mut places: Vec<&str> = injection.iter().map(|h| h.location.as_str()).collect();
        places.dedup();
        (
            Verdict::Quarantined,
            Some(format!(
                "carries instructions aimed at AI agents ({})",
                places.join(", ").replace('_', " ")
            )),
        )
    } else if !identity.passes() {
        let why = identity.lookalike.clone().unwrap_or_else(|| {
            format!(
                "identity {:.2} below the gate {:.2}: the page is not clearly about the entity",
                identity.score,
                identity::IDENTITY_GATE
            )
        });
        (Verdict::Rejected, Some(why))
    } else if text.trim().is_empty() {
        (Verdict::Rejected, Some("no readable text".into()))
    } else {
        (Verdict::Accepted, None)
    };
    // A hostile page's title is its text too: only the address is kept.
    let title = if verdict == Verdict::Quarantined {
        raw.url.clone()
    } else {
        title
    };
    Page {
        url: raw.url.clone(),
        title,
        domain: crate::document::host_of(&raw.url),
        source_type,
        published: raw.published.clone().or(cleaned
            .published
            .as_deref()
            .and_then(crate::document::normalize_date)),
        updated: raw.updated.clone().or(cleaned
            .modified
            .as_deref()
            .and_then(crate::document::normalize_date)),
        authors: if raw.meta.authors.is_empty() {
            cleaned.authors.clone()
        } else {
            raw.meta.authors.clone()
        },
        publisher: raw.meta.publisher.clone().or(cleaned.publisher.clone()),
        retrieved: retrieved.to_string(),
        verdict,
        reason,
        identity,
        injection,
        hidden,
        text,
    }
}

impl Page {
    /// The date a fact on this page is "as of": updated, else published.
    pub fn as_of(&self) -> Option<&str> {
        self.updated.as_deref().or(self.published.as_deref())
    }
}

/// One claim a sub-researcher submitted, with its provenance and fate.
#[derive(Debug, Clone, Serialize)]
pub struct EvidenceItem {
    pub id: String,
    /// The sub-researcher that found it.
    pub origin: String,
    pub claim: Claim,
    pub source: SourceRef,
    pub scores: Scores,
    pub accepted: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Claim {
    pub field: String,
    pub value: String,
    pub snippet: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_date: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SourceRef {
    pub url: String,
    pub domain: String,
    pub source_type: SourceType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated: Option<String>,
    pub retrieved: String,
}

/// The score breakdown of one piece of evidence (see [`score`]): each part
/// in [0, 1], and the reliability they combine into.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Scores {
    pub identity: f64,
    pub authority: f64,
    pub freshness: f64,
    pub completeness: f64,
    pub reliability: f64,
}

impl Scores {
    /// Only the identity known so far; [`score::scored`] fills in the rest.
    pub fn from_identity(identity: f64) -> Scores {
        Scores {
            identity,
            ..Scores::default()
        }
    }
}

impl SourceRef {
    pub fn of(page: &Page) -> SourceRef {
        SourceRef {
            url: page.url.clone(),
            domain: page.domain.clone(),
            source_type: page.source_type,
            published: page.published.clone(),
            updated: page.updated.clone(),
            retrieved: page.retrieved.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_pages_store_the_article_not_the_chrome() {
        let para = "Orla Freight operates ninety trucks from its depot in Leeds and delivers for online shops across the north of England every day of the week.";
        let html = format!(
            "<html><head><title>Orla</title></head><body><nav><a href='/'>Home</a> | <a href='/a'>Menu item one</a></nav><article><h1>Orla Freight</h1><p>{para}</p><p>{para}</p><p style='display:none'>HIDDEN-CANARY</p></article><footer>Copyright footer text</footer></body></html>"
        );
        let raw = RawDocument {
            url: "https://orla.example/".into(),
            title: None,
            published: None,
            updated: None,
            source_type: None,
            content_type: ContentType::Html,
            content: html,
            meta: Default::default(),
        };
        let page = assess(&raw, &EntityAnchors::default(), "2026-11-29");
        assert!(page.text.contains("ninety trucks"), "{}", page.text);
        assert!(
            !page.text.contains("Menu item one"),
            "navigation dropped: {}",
            page.text
        );
        assert!(!page.text.contains("HIDDEN-CANARY"));
    }
}
