//! The corpus as a search backend and a fetcher: the offline "web".

use std::sync::Arc;

use async_trait::async_trait;

use super::Corpus;
use crate::document::{RawDocument, SourceType};
use crate::ports::{Fetcher, SearchBackend, SearchHit, WebError};

const WITHHELD: &str = "[snippet withheld: the page carries instructions aimed at AI agents]";

/// Search and fetch over a local corpus.
#[derive(Clone)]
pub struct CorpusWeb {
    corpus: Arc<Corpus>,
    /// The type of a document on disk that declares none
    /// (`DRA_CORPUS_SOURCE_TYPE`).
    source_type: Option<SourceType>,
}

impl CorpusWeb {
    pub fn new(corpus: Arc<Corpus>) -> Self {
        CorpusWeb {
            corpus,
            source_type: None,
        }
    }

    /// Documents on disk (`file://`) that declare no type get `t`.
    pub fn with_source_type(mut self, t: Option<SourceType>) -> Self {
        self.source_type = t;
        self
    }
}

#[async_trait]
impl SearchBackend for CorpusWeb {
    fn name(&self) -> &str {
        "corpus"
    }

    async fn search(&self, query: &str, max_results: usize) -> Result<Vec<SearchHit>, WebError> {
        let corpus = self.corpus.clone();
        let query = query.to_string();
        let hits = tokio::task::spawn_blocking(move || {
            corpus.search(&query, max_results).map(|hits| {
                hits.into_iter()
                    .filter_map(|h| {
                        let d = corpus.document(h.doc)?;
                        // The whole page is at hand: a hostile one shows no
                        // window of its text (the snippet may hold the
                        // payload without the words that give it away).
                        let hostile = crate::evidence::carries_instructions(&d);
                        Some(SearchHit {
                            title: if hostile {
                                d.url.clone()
                            } else {
                                d.title.clone().unwrap_or_else(|| d.url.clone())
                            },
                            url: d.url.clone(),
                            snippet: if hostile {
                                WITHHELD.to_string()
                            } else {
                                h.snippet
                            },
                            published: d.published.clone(),
                        })
                    })
                    .collect::<Vec<_>>()
            })
        })
        .await
        .map_err(|e| WebError::Failed(e.to_string()))?;
        hits.map_err(|e| WebError::Failed(e.to_string()))
    }
}

#[async_trait]
impl Fetcher for CorpusWeb {
    async fn fetch(&self, url: &str) -> Result<RawDocument, WebError> {
        // Read from the index (disk for a folder): off the async threads.
        let (corpus, key) = (self.corpus.clone(), url.to_string());
        let mut doc = tokio::task::spawn_blocking(move || corpus.get(&key))
            .await
            .map_err(|e| WebError::Failed(e.to_string()))?
            .ok_or_else(|| WebError::NotFound(format!("{url} is not in the corpus")))?;
        if doc.source_type.is_none() && doc.url.starts_with("file://") {
            doc.source_type = self.source_type;
        }
        Ok(doc)
    }
}
