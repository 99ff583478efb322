//! Brave Search: `GET {base}/res/v1/web/search?q=...&count=n` with the key
//! in `X-Subscription-Token`.

use async_trait::async_trait;
use serde::Deserialize;

use super::{Http, SearchOptions, date, endpoint, keep, plain, with_query};
use crate::config::Secret;
use crate::ports::{SearchBackend, SearchHit, WebError};

pub const BRAVE_DEFAULT_BASE_URL: &str = "https://api.search.brave.com";

/// Brave's ceiling on `count`.
const MAX_RESULTS: usize = 20;

#[derive(Debug, Clone)]
pub struct Brave {
    key: Secret,
    url: reqwest::Url,
    http: Http,
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    web: Option<Web>,
}

#[derive(Deserialize)]
struct Web {
    #[serde(default)]
    results: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    page_age: Option<String>,
}

impl Brave {
    /// `base_url` is [`BRAVE_DEFAULT_BASE_URL`] outside tests.
    pub fn new(key: Secret, base_url: &str) -> Result<Brave, WebError> {
        Brave::with_options(key, base_url, SearchOptions::default())
    }

    pub fn with_options(
        key: Secret,
        base_url: &str,
        opts: SearchOptions,
    ) -> Result<Brave, WebError> {
        Ok(Brave {
            key,
            url: endpoint("brave", base_url, "res/v1/web/search")?,
            http: Http::new("brave", opts)?,
        })
    }
}

#[async_trait]
impl SearchBackend for Brave {
    fn name(&self) -> &str {
        "brave"
    }

    async fn search(&self, query: &str, max_results: usize) -> Result<Vec<SearchHit>, WebError> {
        let max = max_results.clamp(1, MAX_RESULTS);
        let count = max.to_string();
        let answer: Answer = self
            .http
            .json(
                || {
                    self.http
                        .client()
                        .get(with_query(&self.url, &[("q", query), ("count", &count)]))
                        .header("Accept", "application/json")
                        .header("X-Subscription-Token", self.key.expose())
                },
                Some(&self.key),
            )
            .await?;
        let hits = answer
            .web
            .map(|w| w.results)
            .unwrap_or_default()
            .into_iter()
            .filter_map(|r| {
                Some(SearchHit {
                    title: plain(r.title.as_deref().unwrap_or_default()),
                    snippet: plain(r.description.as_deref().unwrap_or_default()),
                    published: date(r.page_age.as_deref()),
                    url: r.url?,
                })
            })
            .collect();
        Ok(keep(hits, max))
    }
}
