//! The corpus as a search backend and a fetcher: the offline "web".

use std::sync::Arc;

use async_trait::async_trait;

use super::Corpus;
use crate::document::RawDocument;
use crate::ports::{Fetcher, SearchBackend, SearchHit, WebError};

const WITHHELD: &str = "[snippet withheld: the page carries instructions aimed at AI agents]";

/// Search and fetch over a local corpus.
#[derive(Clone)]
pub struct CorpusWeb {
    corpus: Arc<Corpus>,
}

impl CorpusWeb {
    pub fn new(corpus: Arc<Corpus>) -> Self {
        CorpusWeb { corpus }
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
        self.corpus
            .get(url)
            .ok_or_else(|| WebError::NotFound(format!("{url} is not in the corpus")))
    }
}
