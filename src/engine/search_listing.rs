//! A search's results as the model reads them (`web_search` writes them),
//! and the digest an earlier search shrinks to once a later one came back
//! (the agent loop swaps it in).

use serde_json::{Value, json};

/// A search's results as the model reads them: compact JSON, one result per
/// line (pretty-printing spent a third of the tokens on indentation); a
/// digest says so first.
pub fn listing_json(query: &str, results: &[Value], digest: Option<&str>) -> String {
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
