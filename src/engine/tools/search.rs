use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::document::host_of;
use crate::engine::model::ToolSpec;
use crate::engine::search_listing::listing_json;
use crate::engine::tool::names::WEB_SEARCH;
use crate::engine::tool::{AgentCx, Tool, ToolOutput, parse_args};
use crate::evidence::injection;
use crate::protocol::{EventBody, SearchResultItem};

pub struct WebSearch;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    query: String,
    #[serde(default)]
    max_results: Option<usize>,
}

const MAX_RESULTS: usize = 20;

#[async_trait]
impl Tool for WebSearch {
    fn name(&self) -> &'static str {
        WEB_SEARCH
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: WEB_SEARCH.into(),
            description: "Discover candidate pages about the entity or a claim. Results are only candidates (title, url, snippet): never treat a snippet as a fact; read the page with fetch_url. Write specific queries with identity anchors (name + city/country + topic).".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "minLength": 3, "maxLength": 300},
                    "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS}
                },
                "required": ["query"],
                "additionalProperties": false
            }),
        }
    }

    async fn call(&self, args: Value, cx: &AgentCx) -> ToolOutput {
        let args: Args = match parse_args(WEB_SEARCH, args) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let query = args.query.trim().to_string();
        if query.chars().count() < 3 || query.chars().count() > 300 {
            return ToolOutput::permanent("query must be 3 to 300 characters");
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
