//! Tavily: `POST {base}/search` with the key as a Bearer token.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::json;

use super::{Http, SearchOptions, date, endpoint, keep, plain};
use crate::config::Secret;
use crate::ports::{SearchBackend, SearchHit, WebError};

/// Tavily answers at most this many results per query.
const MAX_RESULTS: usize = 20;

#[derive(Debug, Clone)]
pub struct Tavily {
    key: Secret,
    url: reqwest::Url,
    http: Http,
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    results: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    url: String,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    published_date: Option<String>,
}

impl Tavily {
    pub fn new(key: Secret, base_url: &str) -> Result<Tavily, WebError> {
        Tavily::with_options(key, base_url, SearchOptions::default())
    }

    pub fn with_options(
        key: Secret,
        base_url: &str,
        opts: SearchOptions,
    ) -> Result<Tavily, WebError> {
        Ok(Tavily {
            key,
            url: endpoint("tavily", base_url, "search")?,
            http: Http::new("tavily", opts)?,
        })
    }
}

#[async_trait]
impl SearchBackend for Tavily {
    fn name(&self) -> &str {
        "tavily"
    }

    async fn search(&self, query: &str, max_results: usize) -> Result<Vec<SearchHit>, WebError> {
        let max = max_results.clamp(1, MAX_RESULTS);
        let body = json!({
            "query": query,
            "max_results": max,
            "search_depth": "basic",
            "include_answer": false,
            "include_raw_content": false,
            "include_images": false,
        });
        let answer: Answer = self
            .http
            .json(
                || {
                    self.http
                        .client()
                        .post(self.url.clone())
                        .bearer_auth(self.key.expose())
                        .json(&body)
                },
                Some(&self.key),
            )
            .await?;
        let hits = answer
            .results
            .into_iter()
            .map(|r| SearchHit {
                title: plain(r.title.as_deref().unwrap_or_default()),
                snippet: plain(r.content.as_deref().unwrap_or_default()),
                published: date(r.published_date.as_deref()),
                url: r.url,
            })
            .collect();
        Ok(keep(hits, max))
    }
}
