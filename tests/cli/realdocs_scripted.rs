//! Issue 20's second floor on the real documentation sets
//! (`tests/gold/realdocs`, HTML manuals installed from Debian packages):
//! when the model submits the right sentences, every key fact reaches the
//! report. A loopback OpenAI-compatible server answers every call with the
//! offline policy, except that each sub-researcher, before it submits, reads
//! the pages the case's facts come from (as a model that knows the manual
//! would) and submits, verbatim from the views it was given, the sentences
//! that state the facts. What this measures is everything after the model's
//! choice: the quote gate, the merge, the answer vote and the report.
//!
//! The manuals are Debian packages (`apt-get install sqlite3-doc
//! postgresql-doc-15`; `.ci/run` installs them). The test prints each
//! case's facts found in the Answer and in the report:
//! `cargo test --locked --test all every_key_fact -- --nocapture`
//! (`REALDOCS_CASE=ID` runs one case and prints its report and the
//! fetches and findings of its run).

use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::routing::post;
use dra::config::ModelRole;
use dra::engine::model::{ChatModel, NoSink, Role};
use dra::engine::offline::OfflineModel;
use dra::engine::subresearcher::aspect_of;
use dra::engine::{page_view, spotlight};
use serde_json::{Value, json};

use super::common::{TestHome, repo_path, section};
use super::scripted_offline::{assistant_message, runtime, to_request};

/// The case the server is scripted for: its facts and their pages' URLs.
#[derive(Default, Clone)]
struct Case {
    facts: Vec<String>,
    pages: Vec<String>,
}

type Shared = Arc<Mutex<Case>>;

/// A page's text as the sub-researcher was shown it: every view of it, in
/// order, and where the last one stopped.
struct Seen {
    url: String,
    text: String,
    next_offset: Option<usize>,
}

fn seen_pages(messages: &[dra::engine::model::Message]) -> Vec<Seen> {
    let mut seen: Vec<Seen> = Vec::new();
    for m in messages.iter().filter(|m| m.role == Role::Tool) {
        let Some(v) = page_view::parse(spotlight::unwrap(&m.content)) else {
            continue;
        };
        match seen.iter_mut().find(|s| s.url == v.url) {
            Some(s) => {
                s.text.push('\n');
                s.text.push_str(&v.text);
                s.next_offset = v.next_offset;
            }
            None => seen.push(Seen {
                url: v.url,
                text: v.text,
                next_offset: v.next_offset,
            }),
        }
    }
    seen
}

/// How often the sub-researcher already called `tool` on `url`.
fn calls_on(messages: &[dra::engine::model::Message], tool: &str, url: &str) -> usize {
    messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .filter(|c| c.name == tool && c.arguments["url"].as_str() == Some(url))
        .count()
}

/// Text folded for finding a fact: lowercase ASCII, curly quotes and dashes
/// made plain, runs of whitespace one space; with each folded byte's offset
/// in the original.
fn fold(text: &str) -> (String, Vec<usize>) {
    let mut out = String::new();
    let mut at = Vec::new();
    let mut space = false;
    for (i, c) in text.char_indices() {
        let c = match c {
            '\u{201c}' | '\u{201d}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{2011}' | '\u{2013}' | '\u{2014}' => '-',
            c if c.is_whitespace() => ' ',
            c => c.to_ascii_lowercase(),
        };
        if c == ' ' {
            if space {
                continue;
            }
            space = true;
        } else {
            space = false;
        }
        for _ in 0..c.len_utf8() {
            at.push(i);
        }
        out.push(c);
    }
    (out, at)
}

/// The sentences of `text` that state `fact` (as a whole word), verbatim:
/// each from the end of the sentence before (or its line's start) to the
/// end of its own; with whether the fact is spelled there as given
/// ("TRUNCATE", not "truncate").
fn sentences_stating(text: &str, fact: &str) -> Vec<(String, bool)> {
    let (folded, at) = fold(text);
    let exact = fact.trim();
    let (fact, _) = fold(exact);
    let mut out: Vec<(String, bool)> = Vec::new();
    for start in whole_words(&folded, &fact) {
        let (from, to) = (at[start], at[start + fact.len() - 1]);
        let before = &text[..from];
        let begin = before
            .rfind('\n')
            .map(|i| i + 1)
            .into_iter()
            .chain(before.rfind(". ").map(|i| i + 2))
            .max()
            .unwrap_or(0);
        let after = &text[to..];
        let end = after
            .find('\n')
            .into_iter()
            .chain(after.find(". ").map(|i| i + 1))
            .min()
            .map_or(text.len(), |i| to + i);
        let sentence = text[begin..end].trim().to_string();
        if !out.iter().any(|(s, _)| *s == sentence) {
            out.push((sentence, text[from..].starts_with(exact)));
        }
    }
    out
}

/// The sentence a model would submit for `fact`: of those stating it, one
/// long enough to be a sentence (a bare cell is no quote), spelled as the
/// fact is, and most about the sub-question (`asked` counts its words).
fn sentence_stating(text: &str, fact: &str, asked: &dyn Fn(&str) -> usize) -> Option<String> {
    let found = sentences_stating(text, fact);
    let best = found
        .iter()
        .enumerate()
        .max_by_key(|(i, (s, exact))| (s.len() >= 20, *exact, asked(s), std::cmp::Reverse(*i)))?;
    Some(best.1.0.clone())
}

/// Words of a sub-question that ask rather than say what it is about.
const QUESTION_WORDS: &[&str] = &["which", "what", "there", "does", "have", "when", "where"];

/// The sub-researcher's reply when the offline policy would submit: read
/// the fact pages first (and read on while a fact is not in view), then
/// submit the sentences stating the facts.
fn right_sentences(case: &Case, messages: &[dra::engine::model::Message]) -> Value {
    let seen = seen_pages(messages);
    let unread: Vec<Value> = case
        .pages
        .iter()
        .filter(|u| !seen.iter().any(|s| &s.url == *u) && calls_on(messages, "fetch_url", u) == 0)
        .map(|u| call("fetch_url", json!({"url": u})))
        .collect();
    if !unread.is_empty() {
        return json!(unread);
    }
    // The sentences most about the sub-question first, as a model lists
    // what answers it before what only bears on it.
    let user = messages.iter().find(|m| m.role == Role::User);
    let aspect = aspect_of(user.map_or("", |m| m.content.as_str())).to_lowercase();
    let asked = |q: &str| {
        let q = q.to_lowercase();
        aspect
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 3 && !QUESTION_WORDS.contains(w) && q.contains(w))
            .count()
    };
    let stated = |f: &String| {
        seen.iter()
            .find_map(|s| sentence_stating(&s.text, f, &asked).map(|q| (s.url.clone(), q)))
    };
    let missing = case.facts.iter().any(|f| stated(f).is_none());
    let read_on: Vec<Value> = seen
        .iter()
        .filter(|s| case.pages.contains(&s.url))
        .filter_map(|s| Some((s, s.next_offset?)))
        .filter(|(s, _)| missing && calls_on(messages, "read_source", &s.url) < 12)
        .map(|(s, off)| call("read_source", json!({"url": s.url, "offset": off})))
        .collect();
    if !read_on.is_empty() {
        return json!(read_on);
    }
    let mut stated: Vec<(String, String)> = case.facts.iter().filter_map(stated).collect();
    stated.sort_by_key(|(_, q)| std::cmp::Reverse(asked(q)));
    let mut findings: Vec<Value> = Vec::new();
    for (url, quote) in stated {
        if !findings.iter().any(|f| f["quote"] == quote.as_str()) {
            findings.push(json!({"claim": quote, "quote": quote, "url": url}));
        }
    }
    json!([call(
        "submit_findings",
        json!({"summary": "The sentences of the manual that answer the sub-question.", "findings": findings, "answered": !findings.is_empty()})
    )])
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"id": format!("call-{name}-{}-{}", arguments["url"].as_str().unwrap_or(""), arguments["offset"]), "type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
}

async fn chat(State(case): State<Shared>, body: axum::Json<Value>) -> axum::Json<Value> {
    let request = to_request(&body);
    let usage = json!({"prompt_tokens": 200, "completion_tokens": 40});
    let reply = |message: Value| {
        axum::Json(
            json!({"choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}], "usage": usage}),
        )
    };
    if request.tools.is_empty() {
        return reply(json!({"role": "assistant", "content": "{\"claims\": []}"}));
    }
    let offline = OfflineModel.complete(&request, &NoSink).await.unwrap();
    let submits = offline
        .tool_calls
        .iter()
        .any(|c| c.name == "submit_findings");
    if request.role == ModelRole::Subagent && submits {
        let case = case.lock().unwrap().clone();
        let calls = right_sentences(&case, &request.messages);
        return reply(json!({"role": "assistant", "content": "", "tool_calls": calls}));
    }
    reply(assistant_message(&offline))
}

/// Folds like `benches/realdocs.sh`'s scorer: a fact is found when its
/// folded text is in the folded report and is no part of a longer word.
fn found(fact: &str, text: &str) -> bool {
    let plain = |s: &str| {
        let mut s = s.replace(['`'], "").replace("**", "");
        for e in [
            "\\_", "\\*", "\\[", "\\]", "\\(", "\\)", "\\#", "\\-", "\\.", "\\|",
        ] {
            s = s.replace(e, &e[1..]);
        }
        fold(&s).0
    };
    let (fact, text) = (plain(fact.trim()), plain(text));
    whole_words(&text, &fact).next().is_some()
}

/// Where `fact` occurs in `text` (both folded) as no part of a longer word.
fn whole_words<'a>(text: &'a str, fact: &'a str) -> impl Iterator<Item = usize> + 'a {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let alnum_start = word(fact.chars().next());
    let alnum_end = word(fact.chars().last());
    text.match_indices(fact).map(|(i, _)| i).filter(move |&i| {
        let glued_before = alnum_start && word(text[..i].chars().next_back());
        let glued_after = alnum_end && word(text[i + fact.len()..].chars().next());
        !glued_before && !glued_after
    })
}

#[test]
fn every_key_fact_reaches_the_report_when_the_model_submits_the_right_sentences() {
    let rt = runtime();
    let case: Shared = Arc::default();
    let app = Router::new()
        .route("/v1/chat/completions", post(chat))
        .with_state(case.clone());
    let base = super::common::serve_on_loopback(&rt, app);
    let (mut in_answer, mut in_report, mut total) = (0, 0, 0);
    let mut short = Vec::new();
    for set in ["sqlite", "postgresql"] {
        let gold: Value = serde_json::from_str(
            &std::fs::read_to_string(repo_path(&format!("tests/gold/realdocs/{set}.facts.json")))
                .unwrap(),
        )
        .unwrap();
        let corpus = gold["corpus"].as_str().unwrap().trim_end_matches('/');
        assert!(
            Path::new(corpus).is_dir(),
            "{corpus} is missing: apt-get install {}",
            gold["package"]
        );
        let sb = TestHome::new();
        // REALDOCS_CASE=ID runs one case and prints its report.
        let only = std::env::var("REALDOCS_CASE").ok();
        for c in gold["cases"].as_array().unwrap() {
            if only.as_ref().is_some_and(|id| c["id"] != id.as_str()) {
                continue;
            }
            let strings = |k: &str| -> Vec<String> {
                c[k].as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_string())
                    .collect()
            };
            let pages = strings("pages")
                .iter()
                .map(|p| {
                    let file = p.split([' ', '#']).next().unwrap();
                    format!("file://{corpus}/{file}")
                })
                .collect();
            let facts = strings("facts");
            *case.lock().unwrap() = Case {
                facts: facts.clone(),
                pages,
            };
            let runs = sb.dir.path().join("runs").join(c["id"].as_str().unwrap());
            let mut cmd = sb.std_dra();
            let out = cmd
                .env("OPENAI_API_KEY", "sk-scripted")
                .env("OPENAI_BASE_URL", &base)
                .env("DRA_STREAMING", "false")
                .arg("--runs-dir")
                .arg(&runs)
                .args(["-q", "ask", "--no-memory", "--corpus", corpus])
                .arg(c["question"].as_str().unwrap())
                .output()
                .unwrap();
            let run = std::fs::read_dir(&runs)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path();
            let report = std::fs::read_to_string(run.join("report.md")).unwrap_or_default();
            if only.is_some() {
                println!("{report}");
                let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap_or_default();
                for e in events
                    .lines()
                    .filter(|l| l.contains("finding") || l.contains("fetch"))
                {
                    println!("{}", &e[..e.len().min(600)]);
                }
            }
            let answer = section(&report, "Answer");
            let a = facts.iter().filter(|f| found(f, answer)).count();
            let r: Vec<&String> = facts.iter().filter(|f| found(f, &report)).collect();
            let missing: Vec<&String> = facts.iter().filter(|f| !r.contains(f)).collect();
            println!(
                "{:<32} {a}/{n} {}/{n} exit {:?} missing {missing:?}",
                c["id"].as_str().unwrap(),
                r.len(),
                out.status.code(),
                n = facts.len()
            );
            if a < facts.len() {
                short.push(format!("{}: {a}/{}", c["id"], facts.len()));
            }
            in_answer += a;
            in_report += r.len();
            total += facts.len();
        }
    }
    println!("total: Answer {in_answer}/{total}, report {in_report}/{total}");
    assert!(
        short.is_empty(),
        "key facts missing from the Answer: {short:?}"
    );
}

#[test]
fn a_fact_is_found_in_its_sentence_and_as_a_whole_word() {
    let text = "Intro line.\nThe default setting for SQLITE_MAX_COLUMN is 2000. You can change it.";
    let none = |_: &str| 0;
    assert_eq!(
        sentence_stating(text, "2000", &none).as_deref(),
        Some("The default setting for SQLITE_MAX_COLUMN is 2000.")
    );
    assert_eq!(
        sentence_stating("a | bigint | 8 bytes | x\nnext", "8 bytes", &none).as_deref(),
        Some("a | bigint | 8 bytes | x")
    );
    let modes = "It is truncated when it commits. Modes are DELETE | TRUNCATE.";
    assert_eq!(
        sentence_stating(modes, "TRUNCATE", &none).as_deref(),
        Some("Modes are DELETE | TRUNCATE.")
    );
    // A bare cell is no quote; of the rows, the one about what is asked.
    let table = "NUMERIC\nINT | INTEGER | 1\nDATE DATETIME | NUMERIC | 5";
    let about = |s: &str| usize::from(s.contains("DATETIME"));
    assert_eq!(
        sentence_stating(table, "NUMERIC", &about).as_deref(),
        Some("DATE DATETIME | NUMERIC | 5")
    );
    assert!(found("2000", "is **2000**."));
    assert!(!found("200", "is 2000."));
    assert!(found("jsonb_path_ops", "use `jsonb\\_path\\_ops`"));
}
