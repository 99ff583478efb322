//! The JSON envelope protocol, for endpoints without native tool calling
//! (docs/design.md, "The JSON envelope"). The model replies with one of
//!
//! - `{"type":"tool_call","name":...,"args":{...}}`
//! - `{"type":"tool_calls","calls":[{"name":...,"args":{...}}, ...]}`
//! - `FINAL>>>` and the answer as plain text (`{"type":"final","content":...}`
//!   is still read).
//!
//! Answers left JSON because prose escaped into a JSON string breaks on one
//! missed quote; after `FINAL>>>` nothing needs escaping. The marker is only
//! honoured at the start of a line, and before any JSON is parsed: an answer
//! may open with `{`, and protocol text quoted inside a tool call must not
//! read as an answer.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value, json};

use super::{Message, Role, ToolCall, ToolSpec};

pub const FINAL_MARKER: &str = "FINAL>>>";

/// Model calls per turn when the reply stays malformed (the first try and
/// two repairs).
pub const ATTEMPTS: u32 = 3;

/// Balanced-object scans per reply; bounds the work on brace-heavy prose.
const MAX_CANDIDATES: usize = 256;

#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeCall {
    pub name: String,
    pub args: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Envelope {
    Final(String),
    Calls(Vec<EnvelopeCall>),
}

/// What a malformed reply was trying to be; it decides the repair request.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempted {
    Final,
    ToolCall { name: Option<String> },
    Unknown,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Malformed {
    pub attempted: Attempted,
    /// What broke, naming the character and quoting the text around it.
    pub problem: String,
    /// The content of a broken final answer, when it can be read.
    pub salvage: Option<String>,
}

static TYPE_FIELD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#""type"\s*:\s*"([A-Za-z_]+)""#).ok());
static NAME_FIELD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#""name"\s*:\s*"([^"\\]{1,128})""#).ok());
static OPENS_AS_FINAL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"^\{\s*"type"\s*:\s*"final""#).ok());
static CONTENT_FIELD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#""content"\s*:\s*""#).ok());

/// Reads a reply.
pub fn parse(text: &str) -> Result<Envelope, Malformed> {
    if let Some(answer) = after_marker(text) {
        if answer.trim().is_empty() {
            return Err(Malformed {
                attempted: Attempted::Final,
                problem: format!(
                    "{FINAL_MARKER} was followed by nothing; the answer has to come after the marker"
                ),
                salvage: None,
            });
        }
        return Ok(Envelope::Final(answer.to_string()));
    }
    let mut pos = 0;
    for _ in 0..MAX_CANDIDATES {
        let Some(rel) = text[pos..].find('{') else {
            break;
        };
        let start = pos + rel;
        let Some(end) = balanced_end(text, start) else {
            let cand = &text[start..];
            if looks_like_envelope(cand) {
                return Err(unclosed(cand));
            }
            pos = start + 1;
            continue;
        };
        let cand = &text[start..end];
        match parse_object(cand) {
            Ok(obj) => {
                if let Some(result) = interpret(&obj) {
                    return result;
                }
                // A plain object (an example, some data): keep looking.
                pos = end;
            }
            Err(e) => {
                if looks_like_envelope(cand) {
                    return Err(broken(cand, &e));
                }
                pos = end;
            }
        }
    }
    if text.trim().is_empty() {
        return Err(Malformed {
            attempted: Attempted::Unknown,
            problem: "the reply was empty".into(),
            salvage: None,
        });
    }
    // Prose without the marker or any envelope: read as the answer.
    Ok(Envelope::Final(text.trim().to_string()))
}

/// The text after a `FINAL>>>` that starts a line (after optional spaces or
/// tabs), minus the one newline or one space that separates it.
fn after_marker(text: &str) -> Option<&str> {
    let mut line_start = 0;
    loop {
        let line = &text[line_start..];
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if line[indent..].starts_with(FINAL_MARKER) {
            let rest = &line[indent + FINAL_MARKER.len()..];
            let rest = rest
                .strip_prefix("\r\n")
                .or_else(|| rest.strip_prefix('\n'))
                .or_else(|| rest.strip_prefix(' '))
                .unwrap_or(rest);
            return Some(rest);
        }
        let next = line.find('\n')?;
        line_start += next + 1;
    }
}

/// The end (exclusive) of the balanced object opening at `start`, braces
/// inside strings ignored.
fn balanced_end(text: &str, start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, b) in text.as_bytes()[start..].iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(start + i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Parses an object; on failure retries once with raw control characters
/// inside strings escaped (models often put real newlines in a string).
fn parse_object(cand: &str) -> Result<Map<String, Value>, serde_json::Error> {
    let first = match serde_json::from_str::<Value>(cand) {
        Ok(Value::Object(o)) => return Ok(o),
        Ok(_) => return serde_json::from_str::<Map<String, Value>>(cand),
        Err(e) => e,
    };
    match serde_json::from_str::<Value>(&escape_controls(cand)) {
        Ok(Value::Object(o)) => Ok(o),
        _ => Err(first),
    }
}

fn escape_controls(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    let mut in_string = false;
    let mut escaped = false;
    for c in s.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            } else if (c as u32) < 0x20 {
                match c {
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    other => out.push_str(&format!("\\u{:04x}", other as u32)),
                }
                continue;
            }
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

/// Reads a parsed object; `None` when it is not an envelope at all.
fn interpret(o: &Map<String, Value>) -> Option<Result<Envelope, Malformed>> {
    let ty = o.get("type").and_then(Value::as_str);
    let has_call_shape = o.get("name").is_some_and(Value::is_string)
        && (o.contains_key("args") || o.contains_key("arguments"));
    let result = match ty {
        Some("tool_call") => one_call(o).map(|c| Envelope::Calls(vec![c])),
        None if has_call_shape => one_call(o).map(|c| Envelope::Calls(vec![c])),
        Some("tool_calls") => many_calls(o),
        Some("final" | "final_answer" | "answer") => {
            match o.get("content").and_then(Value::as_str) {
                Some(c) if !c.trim().is_empty() => Ok(Envelope::Final(c.to_string())),
                _ => Err(Malformed {
                    attempted: Attempted::Final,
                    problem: "the final envelope had no content".into(),
                    salvage: None,
                }),
            }
        }
        _ => return None,
    };
    Some(result)
}

fn one_call(o: &Map<String, Value>) -> Result<EnvelopeCall, Malformed> {
    let name = o
        .get("name")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty());
    let bad = |problem: String| Malformed {
        attempted: Attempted::ToolCall {
            name: name.map(str::to_string),
        },
        problem,
        salvage: None,
    };
    let Some(name) = name else {
        return Err(bad("the tool call has no \"name\"".into()));
    };
    let args = match o.get("args").or_else(|| o.get("arguments")) {
        None | Some(Value::Null) => json!({}),
        Some(Value::Object(a)) => Value::Object(a.clone()),
        // Arguments given as a JSON string, the way native calls carry them.
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            _ if s.trim().is_empty() => json!({}),
            _ => {
                return Err(bad(format!(
                    "\"args\" of {name} must be a JSON object, got the string {:?}",
                    excerpt(s, 80)
                )));
            }
        },
        Some(other) => {
            return Err(bad(format!(
                "\"args\" of {name} must be a JSON object, got {}",
                excerpt(&other.to_string(), 80)
            )));
        }
    };
    Ok(EnvelopeCall {
        name: name.to_string(),
        args,
    })
}

fn many_calls(o: &Map<String, Value>) -> Result<Envelope, Malformed> {
    let Some(items) = o.get("calls").and_then(Value::as_array) else {
        return Err(Malformed {
            attempted: Attempted::ToolCall { name: None },
            problem: "\"tool_calls\" needs a \"calls\" array".into(),
            salvage: None,
        });
    };
    if items.is_empty() {
        return Err(Malformed {
            attempted: Attempted::ToolCall { name: None },
            problem: "the \"calls\" array was empty".into(),
            salvage: None,
        });
    }
    let mut calls = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some(obj) = item.as_object() else {
            return Err(Malformed {
                attempted: Attempted::ToolCall { name: None },
                problem: format!("entry {} of \"calls\" is not an object", i + 1),
                salvage: None,
            });
        };
        calls.push(one_call(obj)?);
    }
    Ok(Envelope::Calls(calls))
}

fn looks_like_envelope(cand: &str) -> bool {
    [
        "\"type\"",
        "\"name\"",
        "\"args\"",
        "\"tool_call",
        "\"content\"",
    ]
    .iter()
    .any(|k| cand.contains(k))
}

fn attempted(cand: &str) -> Attempted {
    let ty = TYPE_FIELD
        .as_ref()
        .and_then(|r| r.captures(cand))
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string());
    let name = || {
        NAME_FIELD
            .as_ref()
            .and_then(|r| r.captures(cand))
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string())
    };
    match ty.as_deref() {
        Some("final" | "final_answer" | "answer") => Attempted::Final,
        Some("tool_call" | "tool_calls") => Attempted::ToolCall { name: name() },
        _ if cand.contains("\"args\"") || cand.contains("\"name\"") => {
            Attempted::ToolCall { name: name() }
        }
        _ => Attempted::Unknown,
    }
}

fn broken(cand: &str, e: &serde_json::Error) -> Malformed {
    let attempted = attempted(cand);
    let problem = if e.is_eof() {
        format!(
            "the JSON ended early ({}); it stops at: \"{}\"",
            e,
            tail(cand, 60)
        )
    } else {
        let at = error_offset(cand, e.line(), e.column());
        let ch = cand[at..].chars().next().unwrap_or(' ');
        let before = tail(&cand[..at], 40);
        let after = excerpt(&cand[at + ch.len_utf8()..], 40);
        format!(
            "the JSON broke at the character {ch:?} ({e}), here: \"{before}{ch}{after}\" (the parse stopped at {ch:?})"
        )
    };
    let salvage = (attempted == Attempted::Final)
        .then(|| salvage_final(cand))
        .flatten();
    Malformed {
        attempted,
        problem,
        salvage,
    }
}

fn unclosed(cand: &str) -> Malformed {
    let attempted = attempted(cand);
    let salvage = (attempted == Attempted::Final)
        .then(|| salvage_final(cand))
        .flatten();
    Malformed {
        attempted,
        problem: format!(
            "the JSON object that opens with \"{}\" is never closed: the reply ends at \"{}\" without its closing '}}'",
            excerpt(cand, 40),
            tail(cand, 40)
        ),
        salvage,
    }
}

/// The byte offset serde_json's line and column point at (the column counts
/// bytes and lands just after the offending one).
fn error_offset(s: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match s[start..].find('\n') {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    let mut at = (start + column.saturating_sub(1)).min(s.len().saturating_sub(1));
    while at > 0 && !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn excerpt(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if s.chars().nth(n).is_some() {
        out.push('…');
    }
    out
}

fn tail(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        return s.to_string();
    }
    let rest: String = s.chars().skip(count - n).collect();
    format!("…{rest}")
}

/// The content of an envelope that unmistakably opens as a final answer:
/// everything after `"content": "` up to the last quote, unescaped leniently.
fn salvage_final(cand: &str) -> Option<String> {
    if !OPENS_AS_FINAL.as_ref()?.is_match(cand.trim_start()) {
        return None;
    }
    let m = CONTENT_FIELD.as_ref()?.find(cand)?;
    let body = &cand[m.end()..];
    let body = match body.rfind('"') {
        Some(i) => &body[..i],
        None => body,
    };
    let text = unescape_lenient(body);
    (!text.trim().is_empty()).then_some(text)
}

fn unescape_lenient(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// The message that asks the model to repair a malformed reply. What it asks
/// for depends on what was attempted: a broken answer is pointed at
/// `FINAL>>>`, where nothing can break again; a broken tool call is asked for
/// again, repaired, because an answer in prose instead would trade the work
/// for a sentence about it.
pub fn repair_message(m: &Malformed) -> String {
    let ask = match &m.attempted {
        Attempted::Final => format!(
            "To give your answer, write {FINAL_MARKER} at the start of a line and then the answer as plain text. Nothing after the marker needs escaping, so do not put the answer in JSON."
        ),
        Attempted::ToolCall { name } => {
            let which = match name {
                Some(n) => format!("the same call to `{n}`"),
                None => "the same tool call".to_string(),
            };
            format!(
                "Send {which} again, repaired, as one valid JSON object and nothing else: {{\"type\":\"tool_call\",\"name\":\"<tool>\",\"args\":{{...}}}} (or {{\"type\":\"tool_calls\",\"calls\":[...]}} for several). Escape quotes and newlines inside strings. Do not answer in prose instead of making the call."
            )
        }
        Attempted::Unknown => format!(
            "Reply with exactly one of: a tool call {{\"type\":\"tool_call\",\"name\":\"<tool>\",\"args\":{{...}}}}, several calls {{\"type\":\"tool_calls\",\"calls\":[...]}}, or {FINAL_MARKER} at the start of a line followed by your answer as plain text."
        ),
    };
    format!("Your last reply could not be read: {}.\n{ask}", m.problem)
}

/// The system preamble that teaches the protocol and lists the tools.
pub fn preamble(tools: &[ToolSpec]) -> String {
    let mut out = String::from(
        "You call tools through a JSON protocol (this endpoint has no native tool calling). Every reply is exactly one of:\n\
         \n\
         1. One tool call, as a single JSON object and nothing else:\n\
         {\"type\":\"tool_call\",\"name\":\"<tool name>\",\"args\":{...}}\n\
         \n\
         2. Several independent tool calls at once (they run in parallel):\n\
         {\"type\":\"tool_calls\",\"calls\":[{\"name\":\"<tool name>\",\"args\":{...}},{\"name\":\"<tool name>\",\"args\":{...}}]}\n\
         \n\
         3. Your answer, when you are done: FINAL>>> at the start of a line, then the answer as plain text (markdown is fine, nothing needs escaping):\n\
         FINAL>>>\n\
         <your answer>\n\
         \n\
         \"args\" must follow the tool's parameter schema. Write no prose around a JSON reply, and never write a tool result yourself: each result arrives in the next user message, as \"Tool result for <name> (<id>):\".\n\
         \n\
         Tools:\n",
    );
    for t in tools {
        let params = super::wire::clean_schema(&t.parameters);
        out.push_str(&format!(
            "- {}: {}\n  parameters: {}\n",
            t.name,
            t.description.trim(),
            params
        ));
    }
    out
}

/// The envelope JSON of calls an assistant made, as it would have written it.
pub fn calls_json(calls: &[ToolCall]) -> String {
    // Written by hand so "type" leads, as the preamble shows it.
    let item = |c: &ToolCall| format!(r#""name":{},"args":{}"#, json!(c.name), c.arguments);
    if let [one] = calls {
        return format!(r#"{{"type":"tool_call",{}}}"#, item(one));
    }
    let items: Vec<String> = calls.iter().map(|c| format!("{{{}}}", item(c))).collect();
    format!(r#"{{"type":"tool_calls","calls":[{}]}}"#, items.join(","))
}

/// A conversation rewritten for an endpoint without tool roles: the
/// preamble leads the system message, assistant tool calls become their
/// envelope JSON, and tool results become user text. Consecutive user
/// messages are joined, since some chat templates insist on alternation.
pub fn convert_messages(messages: &[Message], tools: &[ToolSpec]) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::with_capacity(messages.len() + 1);
    let mut rest = messages;
    if !tools.is_empty() {
        let mut system = preamble(tools);
        if let Some((first, tail)) = messages.split_first()
            && first.role == Role::System
        {
            system.push('\n');
            system.push_str(&first.content);
            rest = tail;
        }
        out.push(Message::system(system));
    }
    for m in rest {
        let converted = match m.role {
            Role::Assistant => {
                let content = if m.tool_calls.is_empty() {
                    if m.content.is_empty() {
                        String::new()
                    } else {
                        format!("{FINAL_MARKER}\n{}", m.content)
                    }
                } else {
                    calls_json(&m.tool_calls)
                };
                let mut a = Message::assistant(content, vec![]);
                a.reasoning = m.reasoning.clone();
                a
            }
            Role::Tool => Message::user(format!(
                "Tool result for {} ({}):\n{}",
                m.name.as_deref().unwrap_or("tool"),
                m.tool_call_id.as_deref().unwrap_or("?"),
                m.content
            )),
            Role::System | Role::User => Message::plain(m.role, m.content.clone()),
        };
        match out.last_mut() {
            Some(prev) if prev.role == Role::User && converted.role == Role::User => {
                prev.content.push_str("\n\n");
                prev.content.push_str(&converted.content);
            }
            _ => out.push(converted),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn call(name: &str, args: Value) -> Envelope {
        Envelope::Calls(vec![EnvelopeCall {
            name: name.into(),
            args,
        }])
    }

    #[test]
    fn the_three_forms() {
        assert_eq!(
            parse(r#"{"type":"tool_call","name":"search","args":{"q":"x"}}"#),
            Ok(call("search", json!({"q": "x"})))
        );
        assert_eq!(
            parse(
                r#"{"type":"tool_calls","calls":[{"name":"a","args":{}},{"name":"b","args":{"n":1}}]}"#
            ),
            Ok(Envelope::Calls(vec![
                EnvelopeCall {
                    name: "a".into(),
                    args: json!({})
                },
                EnvelopeCall {
                    name: "b".into(),
                    args: json!({"n": 1})
                },
            ]))
        );
        assert_eq!(
            parse("FINAL>>> The answer."),
            Ok(Envelope::Final("The answer.".into()))
        );
        assert_eq!(
            parse(r#"{"type":"final","content":"old style"}"#),
            Ok(Envelope::Final("old style".into()))
        );
    }

    #[test]
    fn only_one_separator_is_removed_after_the_marker() {
        assert_eq!(
            parse("FINAL>>>\n    code block\n"),
            Ok(Envelope::Final("    code block\n".into()))
        );
        assert_eq!(
            parse("FINAL>>>  two spaces"),
            Ok(Envelope::Final(" two spaces".into()))
        );
        assert_eq!(
            parse("FINAL>>>\n{\"type\":\"tool_call\"} is how I would call"),
            Ok(Envelope::Final(
                "{\"type\":\"tool_call\"} is how I would call".into()
            ))
        );
    }

    #[test]
    fn the_marker_counts_only_at_a_line_start() {
        let quoted = r#"{"type":"tool_call","name":"task","args":{"description":"answer with FINAL>>> when done"}}"#;
        assert_eq!(
            parse(quoted),
            Ok(call(
                "task",
                json!({"description": "answer with FINAL>>> when done"})
            ))
        );
        assert_eq!(
            parse("Done researching.\nFINAL>>> Yes."),
            Ok(Envelope::Final("Yes.".into()))
        );
    }

    #[test]
    fn an_empty_final_is_malformed() {
        let e = parse("FINAL>>>\n  \n").unwrap_err();
        assert_eq!(e.attempted, Attempted::Final);
        assert!(repair_message(&e).contains("FINAL>>>"));
        let e = parse(r#"{"type":"final","content":""}"#).unwrap_err();
        assert_eq!(e.attempted, Attempted::Final);
    }

    #[test]
    fn fences_trailing_prose_and_stacked_objects() {
        let want = call("search", json!({"q": "a {b} \"c\""}));
        let core = r#"{"type":"tool_call","name":"search","args":{"q":"a {b} \"c\""}}"#;
        for text in [
            format!("```json\n{core}\n```"),
            format!("{core}\nI will now wait for the result."),
            format!("{core}\n{{\"type\":\"final\",\"content\":\"done\"}}"),
            format!("{core}{core}"),
            format!("Let me search.\n```\n{core}\n```\nThen read."),
        ] {
            assert_eq!(parse(&text), Ok(want.clone()), "{text}");
        }
    }

    #[test]
    fn raw_newlines_in_strings_and_string_args_are_tolerated() {
        assert_eq!(
            parse("{\"type\":\"tool_call\",\"name\":\"note\",\"args\":{\"text\":\"a\nb\"}}"),
            Ok(call("note", json!({"text": "a\nb"})))
        );
        assert_eq!(
            parse(r#"{"type":"tool_call","name":"s","args":"{\"q\":\"x\"}"}"#),
            Ok(call("s", json!({"q": "x"})))
        );
    }

    #[test]
    fn a_broken_call_names_the_character_and_asks_for_the_same_call() {
        let e =
            parse(r#"{"type":"tool_call","name":"search","args":{"q":"x" "n":3}}"#).unwrap_err();
        assert_eq!(
            e.attempted,
            Attempted::ToolCall {
                name: Some("search".into())
            }
        );
        assert!(e.problem.contains("'\"'"), "{}", e.problem);
        assert!(e.problem.contains("\"x\" \"n\""), "{}", e.problem);
        assert_eq!(e.salvage, None);
        let msg = repair_message(&e);
        assert!(msg.contains("same call to `search`"), "{msg}");
        assert!(!msg.contains("FINAL>>> at the start"), "{msg}");
    }

    #[test]
    fn a_broken_final_is_pointed_at_the_marker_and_salvaged() {
        let e =
            parse(r#"{"type":"final","content":"The "best" option is A.\nSee [1]."}"#).unwrap_err();
        assert_eq!(e.attempted, Attempted::Final);
        assert_eq!(
            e.salvage.as_deref(),
            Some("The \"best\" option is A.\nSee [1].")
        );
        assert!(repair_message(&e).contains("FINAL>>> at the start of a line"));
        // Never closed, still salvageable.
        let e = parse(r#"{"type":"final","content":"Half an answer"#).unwrap_err();
        assert_eq!(e.salvage.as_deref(), Some("Half an answer"));
    }

    #[test]
    fn prose_without_envelope_is_an_answer_and_plain_objects_are_skipped() {
        assert_eq!(
            parse("Paris is the capital."),
            Ok(Envelope::Final("Paris is the capital.".into()))
        );
        assert_eq!(
            parse(r#"The config {"a": 1} then {"type":"tool_call","name":"x","args":{}}"#),
            Ok(call("x", json!({})))
        );
        assert!(parse("   ").is_err());
    }

    #[test]
    fn history_becomes_readable_text() {
        let c = ToolCall {
            id: "call_1".into(),
            name: "search".into(),
            arguments: json!({"q": "x"}),
        };
        let tools = [ToolSpec {
            name: "search".into(),
            description: "Search the web".into(),
            parameters: json!({"$schema": "s", "type": "object"}),
        }];
        let msgs = vec![
            Message::system("You research."),
            Message::user("Q?"),
            Message::assistant("", vec![c.clone()]),
            Message::tool(&c, "result text"),
            Message::user("wrap up"),
            Message::assistant("The answer", vec![]),
        ];
        let out = convert_messages(&msgs, &tools);
        assert_eq!(out.len(), 5);
        assert!(out[0].content.starts_with("You call tools"));
        assert!(out[0].content.contains("- search: Search the web"));
        assert!(!out[0].content.contains("$schema"));
        assert!(out[0].content.ends_with("You research."));
        assert_eq!(
            out[2].content,
            r#"{"type":"tool_call","name":"search","args":{"q":"x"}}"#
        );
        assert_eq!(
            out[3].content,
            "Tool result for search (call_1):\nresult text\n\nwrap up"
        );
        assert_eq!(out[4].content, "FINAL>>>\nThe answer");
        assert!(
            out.iter()
                .all(|m| m.role != Role::Tool && m.tool_calls.is_empty())
        );
    }

    fn envelope_text() -> impl Strategy<Value = String> {
        let args = proptest::collection::btree_map("[a-z]{1,5}", "[ -~]{0,12}", 0..3);
        (args, 0usize..6, "[a-z ]{0,20}").prop_map(|(args, form, prose)| {
            let call = json!({"type": "tool_call", "name": "search", "args": args}).to_string();
            match form {
                0 => call,
                1 => format!("```json\n{call}\n```"),
                2 => format!("{call}\n{prose}"),
                3 => format!("{call}\n{{\"type\":\"final\",\"content\":\"{prose}\"}}"),
                4 => format!("{prose}\n{call}"),
                _ => format!("FINAL>>> {prose}{call}"),
            }
        })
    }

    proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,200}") {
            let _ = parse(&s);
            let _ = parse(&format!("{{\"type\":\"tool_call\",{s}"));
            let _ = parse(&format!("{{\"type\":\"final\",\"content\":\"{s}"));
        }

        /// Fences, trailing prose and stacked objects all read as the call.
        #[test]
        fn wrappers_read_as_the_first_call(text in envelope_text()) {
            match parse(&text) {
                Ok(Envelope::Calls(calls)) => {
                    prop_assert_eq!(calls.len(), 1);
                    prop_assert_eq!(&calls[0].name, "search");
                }
                Ok(Envelope::Final(f)) => prop_assert!(text.starts_with("FINAL>>>"), "{}", f),
                Err(e) => prop_assert!(false, "{:?} for {}", e, text),
            }
        }
    }
}
