//! Follow-up turns (`dra ask --continue RUN "..."`): a new run on the same
//! thread. The earlier turns' pages are reused (a fetch or search the thread
//! already answered is answered again from the earlier run's records, with
//! no network and no cost), and the model sees only the current turn: its
//! question, plus what was asked and answered before as a short,
//! spotlighted context block, never the earlier turns' transcripts.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::document::{RawDocument, normalize_url};
use crate::ports::{Fetcher, SearchBackend, SearchHit, WebError};
use crate::store::Record;

/// Characters of an earlier turn's answer the model is shown.
pub const ANSWER_CHARS: usize = 1_500;
/// Earlier turns a follow-up carries (the most recent ones).
pub const MAX_EARLIER_TURNS: usize = 4;

/// One earlier turn of the thread, as the model is told of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EarlierTurn {
    pub run_id: String,
    pub question: String,
    /// The Answer section of that turn's report, cut to [`ANSWER_CHARS`].
    pub answer: String,
}

/// The earlier turns of a follow-up run.
#[derive(Debug, Default, Clone)]
pub struct Thread {
    /// Oldest first, at most [`MAX_EARLIER_TURNS`].
    pub earlier: Vec<EarlierTurn>,
    pub cache: Arc<ThreadCache>,
}

/// What earlier turns fetched and searched, from their records.
#[derive(Debug, Default)]
pub struct ThreadCache {
    fetches: HashMap<String, RawDocument>,
    searches: HashMap<(String, usize), Vec<SearchHit>>,
}

impl ThreadCache {
    /// Adds the successful fetches and searches of one run's records
    /// (records.jsonl lines); lines that are no such record are skipped.
    pub fn add_records(&mut self, lines: &[Value]) {
        for line in lines {
            match serde_json::from_value::<Record>(line.clone()) {
                Ok(Record::Fetch {
                    url,
                    result: Ok(doc),
                }) => {
                    self.fetches.entry(normalize_url(&url)).or_insert(doc);
                }
                Ok(Record::Search {
                    query,
                    max_results,
                    result: Ok(hits),
                }) => {
                    self.searches.entry((query, max_results)).or_insert(hits);
                }
                _ => {}
            }
        }
    }

    pub fn pages(&self) -> usize {
        self.fetches.len()
    }

    fn fetch(&self, url: &str) -> Option<RawDocument> {
        self.fetches.get(&normalize_url(url)).cloned()
    }

    fn search(&self, query: &str, max_results: usize) -> Option<Vec<SearchHit>> {
        self.searches
            .get(&(query.to_string(), max_results))
            .cloned()
    }
}

/// A search backend that answers queries the thread already asked from
/// the earlier turns' records.
pub struct CachedSearch {
    pub inner: Arc<dyn SearchBackend>,
    pub cache: Arc<ThreadCache>,
}

#[async_trait]
impl SearchBackend for CachedSearch {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn search(&self, query: &str, max_results: usize) -> Result<Vec<SearchHit>, WebError> {
        match self.cache.search(query, max_results) {
            Some(hits) => Ok(hits),
            None => self.inner.search(query, max_results).await,
        }
    }
}

/// A fetcher that answers pages the thread already read from the earlier
/// turns' records (the page as it was read then: same text, same dates).
pub struct CachedFetch {
    pub inner: Arc<dyn Fetcher>,
    pub cache: Arc<ThreadCache>,
}

#[async_trait]
impl Fetcher for CachedFetch {
    async fn fetch(&self, url: &str) -> Result<RawDocument, WebError> {
        match self.cache.fetch(url) {
            Some(doc) => Ok(doc),
            None => self.inner.fetch(url).await,
        }
    }
}

/// The Answer section of a report (its text up to the next `## `
/// heading), cut at a word boundary to `max` characters.
pub fn answer_of(report: &str, max: usize) -> String {
    let mut lines = report.lines().skip_while(|l| l.trim() != "## Answer");
    lines.next();
    let body: Vec<&str> = lines.take_while(|l| !l.starts_with("## ")).collect();
    let text = body.join("\n").trim().to_string();
    if text.chars().count() <= max {
        return text;
    }
    let cut: String = text.chars().take(max).collect();
    let end = cut.rfind(char::is_whitespace).unwrap_or(cut.len());
    format!("{} …", cut[..end].trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn the_answer_section_is_read_and_bounded() {
        let report = "# Title\n\n## Answer\n\nPadmaPay charges 1.9% [1].\n\nMore text.\n\n## Findings\n\n- x";
        assert_eq!(
            answer_of(report, 100),
            "PadmaPay charges 1.9% [1].\n\nMore text."
        );
        assert_eq!(answer_of(report, 12), "PadmaPay …");
        assert_eq!(answer_of("# No answer here", 100), "");
    }

    fn doc(url: &str) -> RawDocument {
        RawDocument {
            url: url.into(),
            title: Some("X".into()),
            published: Some("2026-01-01".into()),
            updated: None,
            source_type: None,
            content_type: crate::document::ContentType::Html,
            content: "<p>hi</p>".into(),
            meta: Default::default(),
        }
    }

    #[test]
    fn fetches_and_searches_of_earlier_turns_are_kept_failures_are_not() {
        let lines: Vec<Value> = [
            Record::Fetch {
                url: "https://a.example/x/".into(),
                result: Ok(doc("https://a.example/x/")),
            },
            Record::Fetch {
                url: "https://a.example/y".into(),
                result: Err(WebError::Failed("timeout".into())),
            },
            Record::Search {
                query: "q".into(),
                max_results: 5,
                result: Ok(vec![SearchHit {
                    title: "t".into(),
                    url: "https://a.example/x".into(),
                    snippet: "s".into(),
                    published: None,
                }]),
            },
        ]
        .iter()
        .map(|r| serde_json::to_value(r).unwrap())
        .chain([json!({"kind": "something_else"})])
        .collect();
        let mut c = ThreadCache::default();
        c.add_records(&lines);
        assert_eq!(c.pages(), 1);
        // The same page under its normalised URL.
        assert_eq!(c.fetch("https://a.example/x").unwrap().content, "<p>hi</p>");
        assert!(c.fetch("https://a.example/y").is_none());
        assert_eq!(c.search("q", 5).unwrap().len(), 1);
        assert!(c.search("q", 6).is_none());
    }

    proptest! {
        #[test]
        fn an_answer_is_never_longer_than_asked(text in "\\PC{0,400}", max in 0usize..200) {
            let report = format!("## Answer\n\n{text}\n\n## Findings\n");
            prop_assert!(answer_of(&report, max).chars().count() <= max + 2);
        }
    }
}
