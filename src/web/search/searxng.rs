//! SearXNG: `GET {instance}/search?q=...&format=json`. The instance must
//! have `json` among its `search.formats`, or it answers 403.

use async_trait::async_trait;
use serde::Deserialize;

use super::{Http, SearchOptions, date, endpoint, keep, plain, with_query};
use crate::ports::{SearchBackend, SearchHit, WebError};

#[derive(Debug, Clone)]
pub struct SearxNg {
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
    url: Option<String>,
    #[serde(default)]
    content: Option<String>,
    #[serde(default, rename = "publishedDate")]
    published_date: Option<String>,
}

impl SearxNg {
    pub fn new(instance_url: &str) -> Result<SearxNg, WebError> {
        SearxNg::with_options(instance_url, SearchOptions::default())
    }

    pub fn with_options(instance_url: &str, opts: SearchOptions) -> Result<SearxNg, WebError> {
        Ok(SearxNg {
            url: endpoint("searxng", instance_url, "search")?,
            http: Http::new("searxng", opts)?,
        })
    }
}

#[async_trait]
impl SearchBackend for SearxNg {
    fn name(&self) -> &str {
        "searxng"
    }

    async fn search(&self, query: &str, max_results: usize) -> Result<Vec<SearchHit>, WebError> {
        let answer: Answer = self
            .http
            .json(
                || {
                    self.http
                        .client()
                        .get(with_query(&self.url, &[("q", query), ("format", "json")]))
                },
                None,
            )
            .await
            .map_err(|e| match e {
                WebError::Failed(m) if m.contains("HTTP 403") => WebError::Failed(format!(
                    "{m} (is `json` enabled in the instance's search.formats?)"
                )),
                other => other,
            })?;
        let hits = answer
            .results
            .into_iter()
            .filter_map(|r| {
                Some(SearchHit {
                    title: plain(r.title.as_deref().unwrap_or_default()),
                    snippet: plain(r.content.as_deref().unwrap_or_default()),
                    published: date(r.published_date.as_deref()),
                    url: r.url?,
                })
            })
            .collect();
        Ok(keep(hits, max_results.max(1)))
    }
}
