//! The seams to the outside world that tools call: a search backend and a
//! fetcher, with their hit and error types. A leaf module (it imports only
//! [`crate::document`]): the corpus and the web implement these traits, the
//! engine calls them, and none of them imports another to do so.

use async_trait::async_trait;

use crate::document::RawDocument;

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SearchHit {
    pub title: String,
    pub url: String,
    pub snippet: String,
    pub published: Option<String>,
}

#[derive(Debug, Clone, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum WebError {
    #[error("not found: {0}")]
    NotFound(String),
    #[error("refused: {0}")]
    Refused(String),
    #[error("{0}")]
    Failed(String),
}

#[async_trait]
pub trait SearchBackend: Send + Sync {
    /// Short name for `search_query.source` (`corpus`, `tavily`, ...).
    fn name(&self) -> &str;
    async fn search(&self, query: &str, max_results: usize) -> Result<Vec<SearchHit>, WebError>;
}

#[async_trait]
pub trait Fetcher: Send + Sync {
    async fn fetch(&self, url: &str) -> Result<RawDocument, WebError>;
}
