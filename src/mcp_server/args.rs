//! The arguments of `dra mcp-serve`'s tools, read from the JSON object a
//! client sent: unknown keys are refused (naming the closest known one),
//! numbers may come as JSON numbers or numeric strings, and every refusal
//! is a sentence the calling agent can act on.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

/// Why a tool's arguments were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ArgError(pub String);

/// `research { question, corpus?, entity?, max_usd?, deadline? }`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResearchArgs {
    /// As asked (line breaks kept); never empty once control characters go.
    pub question: String,
    pub corpus: Option<PathBuf>,
    pub entity: Option<String>,
    pub max_usd: Option<f64>,
    pub deadline: Option<Duration>,
    /// How much of the report comes back.
    pub detail: Detail,
    /// Answers to the questions of a report that asked for clarification,
    /// in their order ("" = no preference).
    pub answers: Vec<String>,
}

/// Most answers one call may carry, and the longest answer.
const MAX_ANSWERS: usize = 20;
const MAX_ANSWER_CHARS: usize = 2_000;

/// The `answers` list: strings, at most [`MAX_ANSWERS`] of at most
/// [`MAX_ANSWER_CHARS`] characters.
fn answers(args: &Map<String, Value>) -> Result<Vec<String>, ArgError> {
    let list = match args.get("answers") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(ArgError(format!(
                "research: `answers` must be a list of strings, not {}",
                kind(other)
            )));
        }
    };
    if list.len() > MAX_ANSWERS {
        return Err(ArgError(format!(
            "research: `answers` holds {} answers; at most {MAX_ANSWERS}",
            list.len()
        )));
    }
    list.iter()
        .map(|a| match a {
            Value::String(s) if s.chars().count() <= MAX_ANSWER_CHARS => {
                Ok(crate::document::single_line(s.trim()).to_string())
            }
            Value::String(_) => Err(ArgError(format!(
                "research: an answer is longer than {MAX_ANSWER_CHARS} characters"
            ))),
            other => Err(ArgError(format!(
                "research: `answers` must be a list of strings, not a list holding {}",
                kind(other)
            ))),
        })
        .collect()
}

/// How much of a `research` report comes back: its Answer section, or all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    Summary,
    #[default]
    Full,
}

/// Longest question accepted (a question, not a corpus).
pub const MAX_QUESTION_CHARS: usize = 20_000;
/// Most runs `runs` lists.
pub const MAX_RUNS_LIMIT: usize = 1_000;
/// Runs `runs` lists when no limit is given.
pub const DEFAULT_RUNS_LIMIT: usize = 20;

fn check_keys(tool: &str, args: &Map<String, Value>, known: &[&str]) -> Result<(), ArgError> {
    for key in args.keys() {
        if !known.contains(&key.as_str()) {
            let shown = crate::document::single_line(key);
            let hint = crate::config::settings::closest(key, known.iter().copied())
                .map(|k| format!(" (did you mean `{k}`?)"))
                .unwrap_or_default();
            return Err(ArgError(format!(
                "{tool}: unknown argument `{shown}`{hint}; it takes {}",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

/// A string argument: absent or null is `None`; an empty one is `None` too.
fn text(tool: &str, args: &Map<String, Value>, key: &str) -> Result<Option<String>, ArgError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            Ok(Some(s.trim().to_string()).filter(|s| !crate::document::single_line(s).is_empty()))
        }
        Some(other) => Err(ArgError(format!(
            "{tool}: `{key}` must be a string, not {}",
            kind(other)
        ))),
    }
}

/// A number argument: a JSON number or a numeric string.
fn number(tool: &str, args: &Map<String, Value>, key: &str) -> Result<Option<f64>, ArgError> {
    let x = match args.get(key) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
        Some(other) => {
            return Err(ArgError(format!(
                "{tool}: `{key}` must be a number, not {}",
                kind(other)
            )));
        }
    };
    match x {
        Some(x) if x.is_finite() && x > 0.0 => Ok(Some(x)),
        _ => Err(ArgError(format!(
            "{tool}: `{key}` must be a positive number"
        ))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Reads `research`'s arguments.
pub fn research(args: &Map<String, Value>) -> Result<ResearchArgs, ArgError> {
    const TOOL: &str = "research";
    check_keys(
        TOOL,
        args,
        &[
            "question", "corpus", "entity", "max_usd", "deadline", "detail", "answers",
        ],
    )?;
    let question = text(TOOL, args, "question")?.ok_or_else(|| {
        ArgError(
            "research: `question` is required: the question to research, in plain words".into(),
        )
    })?;
    if question.chars().count() > MAX_QUESTION_CHARS {
        return Err(ArgError(format!(
            "research: `question` is longer than {MAX_QUESTION_CHARS} characters"
        )));
    }
    let deadline = match args.get("deadline") {
        // "90s", "5m" as `--deadline` takes them.
        Some(Value::String(s)) if s.trim().parse::<f64>().is_err() => {
            Some(crate::config::parse_duration(s).filter(|d| !d.is_zero()).ok_or_else(|| {
                ArgError(
                    "research: `deadline` must be seconds (a number) or a duration such as 90s or 5m"
                        .into(),
                )
            })?)
        }
        _ => number(TOOL, args, "deadline")?
            .map(|s| Duration::try_from_secs_f64(s).unwrap_or(Duration::MAX)),
    };
    if deadline.is_some_and(|d| d < Duration::from_millis(1)) {
        return Err(ArgError(
            "research: `deadline` must be at least a millisecond".into(),
        ));
    }
    let detail = match text(TOOL, args, "detail")?.as_deref() {
        None | Some("full") => Detail::Full,
        Some("summary") => Detail::Summary,
        Some(_) => {
            return Err(ArgError(
                "research: `detail` must be \"summary\" (the report's Answer section) or \"full\" (the whole report)".into(),
            ));
        }
    };
    Ok(ResearchArgs {
        answers: answers(args)?,
        detail,
        question,
        corpus: text(TOOL, args, "corpus")?.map(PathBuf::from),
        entity: text(TOOL, args, "entity")?,
        max_usd: number(TOOL, args, "max_usd")?,
        deadline,
    })
}

/// Reads `search`'s query.
pub fn search(args: &Map<String, Value>) -> Result<String, ArgError> {
    check_keys("search", args, &["query"])?;
    text("search", args, "query")?
        .ok_or_else(|| ArgError("search: `query` is required: the words to search for".into()))
}

/// Reads `fetch`'s URL: http(s) only (a `file://` URL names a corpus
/// document, which the corpus serves itself).
pub fn fetch(args: &Map<String, Value>) -> Result<String, ArgError> {
    check_keys("fetch", args, &["url"])?;
    let url = text("fetch", args, "url")?
        .ok_or_else(|| ArgError("fetch: `url` is required: the page to read".into()))?;
    if !["http://", "https://", "file://"]
        .iter()
        .any(|s| url.to_ascii_lowercase().starts_with(s))
    {
        return Err(ArgError(format!(
            "fetch: {:?} is not an http(s) URL",
            crate::document::single_line(&url)
        )));
    }
    Ok(url)
}

/// Reads `runs`'s limit.
pub fn runs(args: &Map<String, Value>) -> Result<usize, ArgError> {
    check_keys("runs", args, &["limit"])?;
    match number("runs", args, "limit")? {
        None => Ok(DEFAULT_RUNS_LIMIT),
        Some(n) if n.fract() == 0.0 && n <= MAX_RUNS_LIMIT as f64 => Ok(n as usize),
        Some(_) => Err(ArgError(format!(
            "runs: `limit` must be a whole number from 1 to {MAX_RUNS_LIMIT}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn research_reads_every_argument() {
        let a = research(&obj(json!({
            "question": " Is PadmaPay reliable? ",
            "corpus": "./docs",
            "entity": "PadmaPay",
            "max_usd": "0.5",
            "deadline": 90
        })))
        .unwrap();
        assert_eq!(a.question, "Is PadmaPay reliable?");
        assert_eq!(a.corpus, Some(PathBuf::from("./docs")));
        assert_eq!(a.entity.as_deref(), Some("PadmaPay"));
        assert_eq!(a.max_usd, Some(0.5));
        assert_eq!(a.deadline, Some(Duration::from_secs(90)));
        let a = research(&obj(json!({"question": "q", "deadline": "5m"}))).unwrap();
        assert_eq!(a.deadline, Some(Duration::from_secs(300)));
    }

    #[test]
    fn research_refuses_what_it_cannot_use() {
        let err = |v: Value| research(&obj(v)).unwrap_err().0;
        assert!(err(json!({})).contains("`question` is required"));
        assert!(err(json!({"question": "\u{1b}[0m \u{7}"})).contains("required"));
        assert!(err(json!({"question": 3})).contains("must be a string"));
        assert!(err(json!({"question": "q", "max_usd": -1})).contains("positive"));
        assert!(err(json!({"question": "q", "deadline": "soon"})).contains("deadline"));
        assert!(err(json!({"question": "q", "detail": "brief"})).contains("\"summary\""));
        let summary = research(&obj(json!({"question": "q", "detail": "summary"}))).unwrap();
        assert_eq!(summary.detail, Detail::Summary);
        let answered = research(&obj(
            json!({"question": "q", "answers": [" PadmaPay ", ""]}),
        ))
        .unwrap();
        assert_eq!(answered.answers, ["PadmaPay", ""]);
        assert!(err(json!({"question": "q", "answers": "PadmaPay"})).contains("list of strings"));
        assert!(err(json!({"question": "q", "answers": [1]})).contains("list of strings"));
        assert!(err(json!({"question": "q", "answers": vec![""; 21]})).contains("at most 20"));
        let e = err(json!({"question": "q", "max_usdd": 1}));
        assert!(
            e.contains("unknown argument `max_usdd`") && e.contains("max_usd"),
            "{e}"
        );
    }

    #[test]
    fn the_small_tools_read_their_one_argument() {
        assert_eq!(search(&obj(json!({"query": "fees"}))).unwrap(), "fees");
        assert!(search(&obj(json!({}))).is_err());
        assert!(fetch(&obj(json!({"url": "https://a.example/x"}))).is_ok());
        assert!(fetch(&obj(json!({"url": "javascript:alert(1)"}))).is_err());
        assert_eq!(runs(&obj(json!({}))).unwrap(), DEFAULT_RUNS_LIMIT);
        assert_eq!(runs(&obj(json!({"limit": 3}))).unwrap(), 3);
        assert!(runs(&obj(json!({"limit": 2.5}))).is_err());
        assert!(runs(&obj(json!({"limit": 0}))).is_err());
    }

    fn any_json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<f64>().prop_map(|f| json!(f)),
            any::<i64>().prop_map(|i| json!(i)),
            "\\PC{0,16}".prop_map(Value::String),
            "[0-9]{1,4}(\\.[0-9])?[smh]?".prop_map(Value::String),
        ];
        leaf.prop_recursive(2, 8, 4, |inner| {
            proptest::collection::vec(inner, 0..3).prop_map(Value::Array)
        })
    }

    proptest::proptest! {
        #[test]
        fn any_arguments_are_read_or_refused_without_panicking(
            keys in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("question".to_string()),
                    proptest::strategy::Just("deadline".to_string()),
                    proptest::strategy::Just("max_usd".to_string()),
                    proptest::strategy::Just("limit".to_string()),
                    proptest::strategy::Just("url".to_string()),
                    proptest::strategy::Just("query".to_string()),
                    "\\PC{0,8}",
                ],
                0..4,
            ),
            values in proptest::collection::vec(any_json(), 4),
        ) {
            let args: Map<String, Value> = keys.into_iter().zip(values).collect();
            if let Ok(a) = research(&args) {
                proptest::prop_assert!(!crate::document::single_line(&a.question).is_empty());
                proptest::prop_assert!(a.max_usd.is_none_or(|x| x.is_finite() && x > 0.0));
                proptest::prop_assert!(a.deadline.is_none_or(|d| !d.is_zero()));
            }
            if let Ok(n) = runs(&args) {
                proptest::prop_assert!((1..=MAX_RUNS_LIMIT).contains(&n));
            }
            if let Ok(q) = search(&args) {
                proptest::prop_assert!(!q.trim().is_empty());
            }
            let _ = fetch(&args);
        }
    }
}
