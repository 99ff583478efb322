use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::document::host_of;
use crate::engine::search_listing::listing_json;
use crate::engine::tool::names::{FETCH_URL, WEB_SEARCH};
use crate::engine::tool::{AgentCx, ToolDisplay, ToolOutput, TypedTool};
use crate::evidence::injection;
use crate::protocol::{EventBody, SearchResultItem};

pub struct WebSearch;

/// The shortest and longest query, in characters.
const QUERY_MIN: usize = 3;
const QUERY_MAX: usize = 300;
/// The most results one call may ask for.
const MAX_RESULTS: usize = 20;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    #[schemars(length(min = QUERY_MIN, max = QUERY_MAX))]
    query: String,
    #[serde(default)]
    #[schemars(range(min = 1, max = MAX_RESULTS))]
    max_results: Option<usize>,
}

#[async_trait]
impl TypedTool for WebSearch {
    const NAME: &'static str = WEB_SEARCH;
    const DISPLAY: ToolDisplay = ToolDisplay::OwnEvents;
    type Args = Args;

    fn description(&self) -> String {
        format!(
            "Discover candidate pages about the entity or a claim. Results are only candidates (title, url, snippet): never treat a snippet as a fact; read the page with {FETCH_URL}. Write specific queries with identity anchors (name + city/country + topic)."
        )
    }

    async fn run(&self, cx: &AgentCx, args: Args) -> ToolOutput {
        let query = args.query.trim().to_string();
        if !(QUERY_MIN..=QUERY_MAX).contains(&query.chars().count()) {
            return ToolOutput::permanent(format!(
                "query must be {QUERY_MIN} to {QUERY_MAX} characters"
            ));
        }
        let run = &cx.run;
        let max = args
            .max_results
            .unwrap_or(run.settings.search.max_results)
            .clamp(1, MAX_RESULTS);
        let id = run.next_call_id("search");
        run.emitter.emit(
            &cx.agent,
            EventBody::SearchQuery {
                id: id.clone(),
                query: query.clone(),
                source: run.search.name().to_string(),
            },
        );
        let hits = match run.search.search(&query, max).await {
            Ok(h) => h,
            Err(e) => {
                run.emitter.emit(
                    &cx.agent,
                    EventBody::SearchResults {
                        id,
                        query,
                        ok: false,
                        count: 0,
                        results: vec![],
                        error: Some(e.to_string()),
                    },
                );
                return ToolOutput::transient(format!("search failed: {e}"));
            }
        };
        let results: Vec<SearchResultItem> = hits
            .iter()
            .map(|h| SearchResultItem {
                // A title that talks to AI agents is withheld too.
                title: if injection::scan_snippet(&h.title).is_empty() {
                    h.title.clone()
                } else {
                    "[title withheld: it carries instructions aimed at AI agents]".into()
                },
                url: h.url.clone(),
                domain: host_of(&h.url),
                // A snippet that talks to AI agents is withheld, not shown.
                snippet: if injection::scan_snippet(&h.snippet).is_empty() {
                    h.snippet.clone()
                } else {
                    "[snippet withheld: it carries instructions aimed at AI agents]".into()
                },
            })
            .collect();
        run.emitter.emit(
            &cx.agent,
            EventBody::SearchResults {
                id,
                query: query.clone(),
                ok: true,
                count: results.len(),
                results: results.clone(),
                error: None,
            },
        );
        let listing: Vec<Value> = results
            .iter()
            .zip(&hits)
            .map(|(r, h)| {
                let mut item = json!({"url": r.url, "title": r.title, "domain": r.domain, "published": h.published, "snippet": r.snippet});
                if let Some(why) = run.known_bad(&r.url) {
                    // Not read, but its security note still belongs in the report.
                    run.skip(&r.url, &why);
                    item["known_bad"] = Value::String(format!("this domain {why}"));
                }
                item
            })
            .collect();
        let body = listing_json(&query, &listing, None);
        ToolOutput::ok(
            run.spotlight(&body),
            format!("{} results for {query:?}", results.len()),
        )
    }
}
