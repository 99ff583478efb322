use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{AgentCx, Tool, ToolOutput, parse_args};
use crate::document::host_of;
use crate::engine::model::ToolSpec;
use crate::evidence::injection;
use crate::protocol::{EventBody, SearchResultItem};

/// The name models call `WebSearch` by.
pub const WEB_SEARCH: &str = "web_search";

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

/// A search's results as the model reads them: compact JSON, one result per
/// line (pretty-printing spent a third of the tokens on indentation); a
/// digest says so first.
fn listing_json(query: &str, results: &[Value], digest: Option<&str>) -> String {
    let lines: Vec<String> = results.iter().map(Value::to_string).collect();
    let note = digest
        .map(|d| format!("\"digest\": {}, ", Value::String(d.to_string())))
        .unwrap_or_default();
    format!(
        "{{{note}\"query\": {},\n\"results\": [\n{}\n]}}",
        Value::String(query.to_string()),
        lines.join(",\n")
    )
}

/// What an earlier search still tells the model once a later search came
/// back: each result's title and URL (and a known-bad note), without the
/// snippets it has read already. `None` when `content` is no search
/// result (or a digest already).
pub fn digest(content: &str, marker: &str) -> Option<String> {
    let inner = crate::engine::spotlight::unwrap(content);
    let v: Value = serde_json::from_str(inner).ok()?;
    if v.get("digest").is_some() {
        return None;
    }
    let query = v.get("query")?.as_str()?.to_string();
    let results: Vec<Value> = v
        .get("results")?
        .as_array()?
        .iter()
        .map(|r| {
            let mut item = json!({"url": r.get("url"), "title": r.get("title")});
            if let Some(bad) = r.get("known_bad") {
                item["known_bad"] = bad.clone();
            }
            item
        })
        .collect();
    // Marked as a digest, saying why the snippets are gone.
    let body = listing_json(
        &query,
        &results,
        Some("an earlier search: snippets dropped, fetch a URL to read it"),
    );
    Some(crate::engine::spotlight::wrap(marker, &body))
}

#[cfg(test)]
mod digest_tests {
    use super::*;

    #[test]
    fn an_earlier_search_keeps_titles_urls_and_warnings_not_snippets() {
        let listing = vec![
            json!({"url": "https://a.example/x", "title": "X", "domain": "a.example", "published": null, "snippet": "long snippet text"}),
            json!({"url": "https://b.example/y", "title": "Y", "domain": "b.example", "published": "2026-01-01", "snippet": "s", "known_bad": "this domain hid instructions"}),
        ];
        let full =
            crate::engine::spotlight::wrap("m1", &listing_json("acme \"ceo\"", &listing, None));
        let parsed: Value = serde_json::from_str(crate::engine::spotlight::unwrap(&full)).unwrap();
        assert_eq!(parsed["results"].as_array().unwrap().len(), 2);
        let d = digest(&full, "m1").unwrap();
        assert!(d.len() < full.len());
        let v: Value = serde_json::from_str(crate::engine::spotlight::unwrap(&d)).unwrap();
        assert_eq!(v["query"], "acme \"ceo\"");
        assert_eq!(v["results"][0]["url"], "https://a.example/x");
        assert!(v["results"][0].get("snippet").is_none());
        assert_eq!(v["results"][1]["known_bad"], "this domain hid instructions");
        // A digest is not digested again; other text is no search.
        assert!(digest(&d, "m1").is_none());
        assert!(digest("Error: bad query", "m1").is_none());
    }
}
