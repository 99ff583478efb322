//! The names and schemas MCP tools are offered to models under: `label__tool`
//! within `^[a-zA-Z0-9_-]{1,64}$` (OpenAI's function-name rule), unique in
//! the agent's toolbox, with `$schema` and `title` stripped from schemas.

use std::collections::HashSet;

use serde_json::{Map, Value};

/// The longest tool name providers accept.
pub const MAX_NAME: usize = 64;

/// Keeps letters, digits, `_` and `-`; anything else becomes `_`.
pub fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The name `tool` of server `label` is offered under, unique among `taken`
/// (which it joins). Collisions get `_2`, `_3`, ... within 64 characters.
pub fn exposed_name(label: &str, tool: &str, taken: &mut HashSet<String>) -> String {
    let tool = if tool.is_empty() { "tool" } else { tool };
    unique_name(&format!("{}__{}", sanitize(label), sanitize(tool)), taken)
}

/// `name` sanitised to the provider rule and made unique among `taken`
/// (which it joins, lower-cased): `_2`, `_3`, ... within 64 characters.
/// Custom tools are named with it directly (no server label).
pub fn unique_name(name: &str, taken: &mut HashSet<String>) -> String {
    let name = if name.is_empty() { "tool" } else { name };
    let base: String = sanitize(name).chars().take(MAX_NAME).collect();
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name.to_ascii_lowercase()) {
        let suffix = format!("_{n}");
        let keep = MAX_NAME - suffix.len();
        name = format!("{}{suffix}", base.chars().take(keep).collect::<String>());
        n += 1;
    }
    taken.insert(name.to_ascii_lowercase());
    name
}

/// Keys whose values map names to schemas (the names are not keywords).
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// A tool's input schema cleaned for providers: `$schema` and `title`
/// removed at every level (not property names called `title`), and an
/// object schema at the top.
pub fn clean_schema(schema: &Map<String, Value>) -> Value {
    let mut v = Value::Object(schema.clone());
    strip(&mut v);
    if let Value::Object(m) = &mut v {
        m.entry("type")
            .or_insert_with(|| Value::String("object".into()));
        if m.get("type").and_then(Value::as_str) == Some("object") {
            m.entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
        }
    }
    v
}

fn strip(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("$schema");
            m.remove("title");
            for (k, child) in m.iter_mut() {
                if SCHEMA_MAPS.contains(&k.as_str()) {
                    if let Value::Object(named) = child {
                        named.values_mut().for_each(strip);
                    }
                } else {
                    strip(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn valid(name: &str) -> bool {
        (1..=MAX_NAME).contains(&name.len())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn names_are_prefixed_sanitised_and_unique() {
        let mut taken = HashSet::from(["web_search".to_string()]);
        assert_eq!(exposed_name("wiki", "search", &mut taken), "wiki__search");
        assert_eq!(exposed_name("wiki", "search", &mut taken), "wiki__search_2");
        assert_eq!(
            exposed_name("wiki", "get.page/v2", &mut taken),
            "wiki__get_page_v2"
        );
        // Two tools that sanitise alike stay apart.
        assert_eq!(
            exposed_name("wiki", "get page v2", &mut taken),
            "wiki__get_page_v2_2"
        );
        let long = "x".repeat(100);
        let a = exposed_name("wiki", &long, &mut taken);
        let b = exposed_name("wiki", &long, &mut taken);
        assert!(valid(&a) && valid(&b) && a != b, "{a} {b}");
        assert_eq!(exposed_name("wiki", "", &mut taken), "wiki__tool");
    }

    #[test]
    fn plain_names_are_sanitised_and_kept_apart_from_taken_ones() {
        let mut taken = HashSet::from(["web_search".to_string()]);
        assert_eq!(unique_name("Web_Search", &mut taken), "Web_Search_2");
        assert_eq!(unique_name("fx table", &mut taken), "fx_table");
        assert_eq!(unique_name("fx.table", &mut taken), "fx_table_2");
        assert_eq!(unique_name("", &mut taken), "tool");
    }

    #[test]
    fn schemas_lose_schema_and_title_but_keep_a_property_called_title() {
        let s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "SearchArgs",
            "type": "object",
            "properties": {
                "title": {"type": "string", "title": "Title"},
                "filters": {"type": "array", "items": {"title": "F", "type": "string"}}
            },
            "$defs": {"title": {"title": "x", "type": "string"}}
        });
        let cleaned = clean_schema(s.as_object().unwrap());
        assert_eq!(
            cleaned,
            json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "filters": {"type": "array", "items": {"type": "string"}}
                },
                "$defs": {"title": {"type": "string"}}
            })
        );
        assert_eq!(
            clean_schema(&Map::new()),
            json!({"type": "object", "properties": {}})
        );
    }

    proptest! {
        #[test]
        fn every_exposed_name_is_valid_and_distinct(
            label in "[a-zA-Z0-9_-]{1,32}",
            tools in proptest::collection::vec("\\PC{0,80}", 1..12),
        ) {
            let mut taken = HashSet::new();
            let mut names = HashSet::new();
            for t in &tools {
                let n = exposed_name(&label, t, &mut taken);
                prop_assert!(valid(&n), "{}", n);
                prop_assert!(names.insert(n.to_ascii_lowercase()));
            }
        }

        #[test]
        fn every_unique_name_is_valid_and_distinct(names in proptest::collection::vec("\\PC{0,80}", 1..12)) {
            let mut taken = HashSet::new();
            let mut seen = HashSet::new();
            for n in &names {
                let u = unique_name(n, &mut taken);
                prop_assert!(valid(&u), "{}", u);
                prop_assert!(seen.insert(u.to_ascii_lowercase()));
            }
        }

        #[test]
        fn no_schema_or_title_keyword_survives(depth in 0usize..4, key in "[a-z]{1,6}") {
            let mut s = json!({"$schema": "x", "title": "t", "type": "string"});
            for _ in 0..depth {
                s = json!({"title": "t", "type": "object", "properties": {key.clone(): s}, "anyOf": [{"title": "a"}]});
            }
            let Value::Object(m) = s else { unreachable!() };
            let text = clean_schema(&m).to_string();
            prop_assert!(!text.contains("\"$schema\""));
            prop_assert!(!text.contains("\"title\":\"t\""));
            prop_assert!(!text.contains("\"title\":\"a\""));
        }
    }
}
