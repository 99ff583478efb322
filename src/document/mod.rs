//! Shared vocabulary of documents: a raw document as a search backend or a
//! corpus returns it, its content type and source type, and the date and URL
//! normalisation every layer agrees on. A leaf module: it imports nothing
//! else of dra.

pub mod sanitize;
mod source_type;

pub use sanitize::{sanitize_line, sanitize_text, single_line};
pub use source_type::{SourceType, infer as infer_source_type};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ContentType {
    Html,
    Markdown,
    Plain,
}

impl ContentType {
    pub fn parse(s: &str) -> Option<ContentType> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "text/html" | "html" => ContentType::Html,
            "text/markdown" | "markdown" | "md" => ContentType::Markdown,
            "text/plain" | "plain" | "text" => ContentType::Plain,
            _ => return None,
        })
    }

    pub fn as_mime(self) -> &'static str {
        match self {
            ContentType::Html => "text/html",
            ContentType::Markdown => "text/markdown",
            ContentType::Plain => "text/plain",
        }
    }
}

/// One raw document: what a fetch returns before cleaning.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct RawDocument {
    pub url: String,
    pub title: Option<String>,
    pub published: Option<String>,
    pub updated: Option<String>,
    pub source_type: Option<SourceType>,
    pub content_type: ContentType,
    pub content: String,
    /// Authors, publisher and other metadata (front-matter keys dra does not
    /// use, JSON-LD and OpenGraph fields).
    pub meta: DocMeta,
}

/// Metadata of a document beyond its dates and type.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DocMeta {
    pub authors: Vec<String>,
    pub publisher: Option<String>,
    /// Front-matter keys dra has no use for (`tags`, `author`, ...), kept.
    pub extra: std::collections::BTreeMap<String, String>,
}

/// URLs compare without a trailing slash or fragment.
pub fn normalize_url(url: &str) -> String {
    let url = url.trim();
    let url = url.split('#').next().unwrap_or(url);
    url.trim_end_matches('/').to_string()
}

/// Month names, January first.
pub const MONTH_NAMES: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

const MONTH_ABBREVIATIONS: &[&str] = &[
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
];

const WEEKDAYS: &[&str] = &[
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Words just before a name that make it the one who held a role before
/// ("replacing co-founder Arjun Pillai", "the former chief executive").
pub const PREDECESSOR_WORDS: &[&str] = &[
    "replacing",
    "replaced",
    "replaces",
    "succeeding",
    "succeeded",
    "succeeds",
    "former",
    "formerly",
    "outgoing",
    "predecessor",
    "previous",
    "ex",
];

/// Whether the text before a name ends with a predecessor word within its
/// last three words ("..., replacing co-founder").
pub fn follows_predecessor_word(before: &str) -> bool {
    before
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .rev()
        .take(3)
        .any(|w| PREDECESSOR_WORDS.contains(&w.to_lowercase().as_str()))
}

/// A month (full or abbreviated) or weekday name, given in lowercase: a
/// capitalised word that is never a person's or an organisation's name.
pub fn is_calendar_word(lower: &str) -> bool {
    MONTH_NAMES.contains(&lower)
        || MONTH_ABBREVIATIONS.contains(&lower)
        || WEEKDAYS.contains(&lower)
}

/// The lowercase host of a URL, without `www.`.
pub fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map(|x| x.1).unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = if host.starts_with('[') {
        host.split(']')
            .next()
            .unwrap_or(host)
            .trim_start_matches('[')
    } else {
        host.split(':').next().unwrap_or(host)
    };
    host.trim_start_matches("www.").to_ascii_lowercase()
}

/// Accepts `YYYY-MM-DD` and RFC 3339 timestamps; returns `YYYY-MM-DD`.
pub fn normalize_date(s: &str) -> Option<String> {
    let s = s.trim();
    let day = s.get(..10)?;
    chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").ok()?;
    let rest = s.get(10..)?;
    (rest.is_empty() || rest.starts_with('T') || rest.starts_with(' ')).then(|| day.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_normalise_to_days() {
        assert_eq!(
            normalize_date("2025-03-01T10:00:00Z").as_deref(),
            Some("2025-03-01")
        );
        assert_eq!(normalize_date("2025-03-01").as_deref(), Some("2025-03-01"));
        assert_eq!(normalize_date("2025-13-01"), None);
        assert_eq!(normalize_date("2025-03-01x"), None);
    }

    proptest::proptest! {
        #[test]
        fn normalize_date_never_panics(s in "\\PC{0,30}") {
            let _ = normalize_date(&s);
            let _ = normalize_url(&s);
        }
    }
}
