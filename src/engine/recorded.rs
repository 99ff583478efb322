//! The run's search backend and fetcher as its agents see them: every
//! answer is recorded, and on resume answered from the records
//! ([`Replay`]) instead of being asked again.

use std::sync::Arc;

use async_trait::async_trait;

use super::emitter::Emitter;
use super::reach::{Reach, is_outage};
use super::replay::{FetchResult, Replay, SearchResult};
use crate::ports::{Fetcher, SearchBackend};
use crate::store::Record;

/// A search backend whose answers are recorded, and on resume replayed.
pub struct RecordedSearch {
    pub inner: Arc<dyn SearchBackend>,
    pub replay: Option<Arc<Replay>>,
    pub emitter: Emitter,
    pub reach: Arc<Reach>,
}

#[async_trait]
impl SearchBackend for RecordedSearch {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn search(&self, query: &str, max_results: usize) -> SearchResult {
        if let Some(r) = self
            .replay
            .as_ref()
            .and_then(|r| r.search(query, max_results))
        {
            self.reach.search(&r);
            return r;
        }
        let result = self.inner.search(query, max_results).await;
        self.reach.search(&result);
        // An outage is not an answer: a resumed run asks again.
        if !is_outage(&result) {
            self.emitter
                .record(Record::Search {
                    query: query.to_string(),
                    max_results,
                    result: result.clone(),
                })
                .await;
        }
        result
    }
}

/// A fetcher whose answers are recorded, and on resume replayed.
pub struct RecordedFetch {
    pub inner: Arc<dyn Fetcher>,
    pub replay: Option<Arc<Replay>>,
    pub emitter: Emitter,
    pub reach: Arc<Reach>,
}

#[async_trait]
impl Fetcher for RecordedFetch {
    async fn fetch(&self, url: &str) -> FetchResult {
        if let Some(r) = self.replay.as_ref().and_then(|r| r.fetch(url)) {
            self.reach.fetch(&r);
            return r;
        }
        let result = self.inner.fetch(url).await;
        self.reach.fetch(&result);
        if !is_outage(&result) {
            self.emitter
                .record(Record::Fetch {
                    url: url.to_string(),
                    result: result.clone(),
                })
                .await;
        }
        result
    }
}
