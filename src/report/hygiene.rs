//! The deterministic scrub applied to every report: leaked tool-call or
//! envelope text, thinking tags, stray JSON and protocol markers removed.

use std::sync::LazyLock;

use regex::Regex;

/// What the scrub removed, for the revising message and tests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scrubbed {
    pub markdown: String,
    pub removed: Vec<String>,
}

static THINK: LazyLock<Regex> = LazyLock::new(|| {
    crate::re(
        r"(?is)<(think|thinking|reasoning|scratchpad)>.*?(</(think|thinking|reasoning|scratchpad)>|\z)",
    )
});
static TOOL_TAGS: LazyLock<Regex> = LazyLock::new(|| {
    crate::re(
        r"(?is)<(tool_call|function_call|tool_calls|invoke|function_results?|tool_result)\b[^>]*>.*?(</(tool_call|function_call|tool_calls|invoke|function_results?|tool_result)>|\z)",
    )
});
static SPECIAL_TOKENS: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"<\|[a-z_]{2,40}\|>|\[/?(TOOL_CALLS|INST)\]"));
static FINAL_MARKER: LazyLock<Regex> = LazyLock::new(|| crate::re(r"(?m)^\s*FINAL>>>[ \t]*\n?"));
static UNTRUSTED: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"(?s)<</?untrusted-data [0-9a-f]+>>"));

/// Scrubs a report.
pub fn scrub(markdown: &str) -> Scrubbed {
    let mut removed = Vec::new();
    let mut text = markdown.replace("\r\n", "\n");
    for (name, re) in [
        ("thinking block", &*THINK),
        ("tool-call markup", &*TOOL_TAGS),
        ("special tokens", &*SPECIAL_TOKENS),
        ("FINAL>>> marker", &*FINAL_MARKER),
        ("untrusted-data delimiters", &*UNTRUSTED),
    ] {
        if re.is_match(&text) {
            removed.push(name.to_string());
            text = re.replace_all(&text, "").into_owned();
        }
    }
    let (text, json_removed) = drop_envelope_json(&text);
    if json_removed {
        removed.push("tool-call JSON".into());
    }
    let (text, fences_removed) = drop_stray_json_fences(&text);
    if fences_removed {
        removed.push("stray JSON block".into());
    }
    Scrubbed {
        markdown: collapse_blank_lines(text.trim()),
        removed,
    }
}

/// Whether a JSON value looks like a tool call or protocol envelope.
fn is_envelope(v: &serde_json::Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    let ty = o.get("type").and_then(|t| t.as_str()).unwrap_or("");
    matches!(ty, "tool_call" | "tool_calls" | "final" | "function")
        || (o.contains_key("name") && (o.contains_key("arguments") || o.contains_key("args")))
        || o.contains_key("tool_calls")
        || o.contains_key("function_call")
}

/// Removes lines (or line runs) that are a whole JSON envelope object.
fn drop_envelope_json(text: &str) -> (String, bool) {
    let mut out = Vec::new();
    let mut removed = false;
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim_start().starts_with('{') {
            // Try the shortest run of lines starting here that parses.
            let mut buf = String::new();
            let mut matched = None;
            for (j, l) in lines.iter().enumerate().skip(i).take(200) {
                buf.push_str(l);
                buf.push('\n');
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(buf.trim()) {
                    if is_envelope(&v) {
                        matched = Some(j);
                    }
                    break;
                }
            }
            if let Some(j) = matched {
                removed = true;
                i = j + 1;
                continue;
            }
        }
        out.push(line);
        i += 1;
    }
    (out.join("\n"), removed)
}

/// Removes fenced ```json blocks that hold an envelope.
fn drop_stray_json_fences(text: &str) -> (String, bool) {
    static FENCE: LazyLock<Regex> =
        LazyLock::new(|| crate::re(r"(?s)```(?:json)?\s*\n(\{.*?\})\s*\n```"));
    let mut removed = false;
    let out = FENCE.replace_all(text, |c: &regex::Captures| {
        match serde_json::from_str::<serde_json::Value>(&c[1]) {
            Ok(v) if is_envelope(&v) => {
                removed = true;
                String::new()
            }
            _ => c[0].to_string(),
        }
    });
    (out.into_owned(), removed)
}

fn collapse_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    let mut blanks = 0;
    for line in text.lines() {
        if line.trim().is_empty() {
            blanks += 1;
            if blanks > 1 {
                continue;
            }
        } else {
            blanks = 0;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_leaks_and_keeps_prose() {
        let md = "# Report\n<think>secret plan</think>\nFINAL>>> \nFees are 1.9% [1].\n{\"type\":\"tool_call\",\"name\":\"web_search\",\"args\":{\"query\":\"x\"}}\n<tool_call>{\"name\":\"x\"}</tool_call>\n```json\n{\"name\":\"fetch_url\",\"arguments\":{}}\n```\nA table: {not json}\n```json\n{\"kept\": true}\n```\n";
        let s = scrub(md);
        assert!(!s.markdown.contains("secret plan"));
        assert!(!s.markdown.contains("tool_call"));
        assert!(!s.markdown.contains("FINAL>>>"));
        assert!(!s.markdown.contains("fetch_url"));
        assert!(s.markdown.contains("Fees are 1.9% [1]."));
        assert!(s.markdown.contains("{not json}"));
        assert!(s.markdown.contains("\"kept\""));
        assert!(s.removed.len() >= 4, "{:?}", s.removed);
    }

    #[test]
    fn clean_reports_are_unchanged() {
        let md = "# R\n\nText [1].\n\n## Sources\n\n[1] A - https://a.example\n";
        let s = scrub(md);
        assert!(s.removed.is_empty());
        assert_eq!(s.markdown, md);
    }
}
