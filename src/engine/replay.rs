//! Replay for `dra resume`: a resumed run executes again from the start,
//! but every step the earlier invocations completed is answered from the
//! run's own records instead of being paid for twice.
//!
//! - a model call is replayed when a record has the same agent, the same
//!   call index and the same request digest (so a changed prompt is never
//!   answered from a stale record), or, whatever agent or position asks,
//!   when an unused record has the same request digest: parallel work
//!   (sub-researchers, per-page claim extraction) that interleaves in
//!   another order on resume is still answered by identity, not by order;
//! - searches and fetches are answered from their recorded results, in the
//!   order asked, so tools rebuild the same pages and evidence;
//! - answers to clarifying questions given earlier are given again.
//!
//! An agent that has records is *replaying* until it asks for something
//! not recorded (a miss); its events are then not emitted again (they are
//! in events.jsonl already). What was in flight when the run stopped has
//! no record: it runs again, live, and its events appear again.

use crate::sync::LockExt;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use super::model::ChatResponse;
use crate::document::RawDocument;
use crate::ports::{SearchHit, WebError};
use crate::protocol::{Event, EventBody};
use crate::store::Record;

pub(crate) type SearchResult = Result<Vec<SearchHit>, WebError>;
pub(crate) type FetchResult = Result<RawDocument, WebError>;
/// Agent, questions, answers.
type RecordedAnswers = (String, Vec<String>, Vec<String>);

/// What a run's records hold, ready to answer a resumed run.
#[derive(Default)]
pub struct Replay {
    model_calls: HashMap<(String, u64), (String, ChatResponse)>,
    /// Per request digest, the records made for it (agent, index).
    by_digest: HashMap<String, Vec<(String, u64)>>,
    /// Records already handed out (each answers one call).
    used: Mutex<HashSet<(String, u64)>>,
    /// Per agent and call id, in the order recorded (ids repeat across turns).
    tool_results: Mutex<HashMap<(String, String), VecDeque<String>>>,
    tool_result_count: u64,
    searches: Mutex<HashMap<(String, usize), VecDeque<SearchResult>>>,
    fetches: Mutex<HashMap<String, VecDeque<FetchResult>>>,
    externals: Mutex<HashMap<String, VecDeque<Value>>>,
    answers: Mutex<VecDeque<RecordedAnswers>>,
    /// Agents with at least one record.
    recorded_agents: HashSet<String>,
    /// Agents that asked for something not recorded: live from then on.
    live: Mutex<HashSet<String>>,
    replayed_calls: AtomicU64,
    start: Option<StartRecord>,
    unreadable: usize,
    /// Source numbers the earlier invocations gave (URL, number).
    source_numbers: Vec<(String, usize)>,
}

/// The run's first record.
#[derive(Debug, Clone)]
pub struct StartRecord {
    pub inputs: Value,
    pub spotlight: String,
    pub today: String,
}

/// What a replayed model call says about the request.
pub enum ModelLookup {
    Hit(Box<ChatResponse>),
    Miss,
    /// A record exists at this position but for another request.
    Diverged,
}

impl Replay {
    /// Reads records (as JSON lines); lines that are no record are counted
    /// and skipped.
    pub fn from_lines(lines: &[Value]) -> Replay {
        let mut r = Replay::default();
        let mut remaining: HashSet<String> = HashSet::new();
        for line in lines {
            let Ok(rec) = serde_json::from_value::<Record>(line.clone()) else {
                r.unreadable += 1;
                continue;
            };
            match rec {
                Record::Start {
                    inputs,
                    spotlight,
                    today,
                } => {
                    r.start.get_or_insert(StartRecord {
                        inputs,
                        spotlight,
                        today,
                    });
                }
                Record::ModelCall {
                    agent,
                    index,
                    request_digest,
                    response,
                    ..
                } => {
                    let Ok(resp) = serde_json::from_value::<ChatResponse>(response) else {
                        r.unreadable += 1;
                        continue;
                    };
                    remaining.insert(agent.clone());
                    r.by_digest
                        .entry(request_digest.clone())
                        .or_default()
                        .push((agent.clone(), index));
                    r.model_calls.insert((agent, index), (request_digest, resp));
                }
                Record::ToolResult {
                    agent,
                    call_id,
                    result,
                    ..
                } => {
                    remaining.insert(agent.clone());
                    r.tool_result_count += 1;
                    r.tool_results
                        .get_mut_or_recover()
                        .entry((agent, call_id))
                        .or_default()
                        .push_back(result);
                }
                Record::Search {
                    query,
                    max_results,
                    result,
                } => r
                    .searches
                    .get_mut_or_recover()
                    .entry((query, max_results))
                    .or_default()
                    .push_back(result),
                Record::Fetch { url, result } => r
                    .fetches
                    .get_mut_or_recover()
                    .entry(url)
                    .or_default()
                    .push_back(result),
                Record::External { key, result } => r
                    .externals
                    .get_mut_or_recover()
                    .entry(key)
                    .or_default()
                    .push_back(result),
                Record::ClarificationAnswers {
                    agent,
                    questions,
                    answers,
                } => {
                    remaining.insert(agent.clone());
                    r.answers
                        .get_mut_or_recover()
                        .push_back((agent, questions, answers));
                }
            }
        }
        r.recorded_agents = remaining;
        r
    }

    /// Keeps the source numbers the earlier invocations gave, read from
    /// their `source` events: a page gets its number again whatever order
    /// parallel sub-researchers read in this time.
    pub fn with_source_numbers(mut self, events: &[Value]) -> Replay {
        self.source_numbers = events
            .iter()
            .filter_map(|e| match serde_json::from_value::<Event>(e.clone()) {
                Ok(Event {
                    body: EventBody::Source { url, index, .. },
                    ..
                }) => Some((url, index)),
                _ => None,
            })
            .collect();
        self
    }

    pub fn source_numbers(&self) -> &[(String, usize)] {
        &self.source_numbers
    }

    pub fn start(&self) -> Option<&StartRecord> {
        self.start.as_ref()
    }

    /// Record lines that could not be read (from another version, say).
    pub fn unreadable(&self) -> usize {
        self.unreadable
    }

    pub fn recorded_model_calls(&self) -> u64 {
        self.model_calls.len() as u64
    }

    pub fn recorded_tool_results(&self) -> u64 {
        self.tool_result_count
    }

    /// Model calls answered from records so far.
    pub fn replayed_calls(&self) -> u64 {
        self.replayed_calls.load(Ordering::SeqCst)
    }

    /// Whether this agent's events are already in events.jsonl.
    pub fn is_replaying(&self, agent: &str) -> bool {
        self.recorded_agents.contains(agent) && !lock(&self.live).contains(agent)
    }

    /// The recorded response to this agent's `index`th call, if the request
    /// is the one recorded. A miss makes the agent live.
    pub fn model_call(&self, agent: &str, index: u64, digest: &str) -> ModelLookup {
        let key = (agent.to_string(), index);
        let mut used = lock(&self.used);
        let at_position = self.model_calls.get(&key).filter(|_| !used.contains(&key));
        if !lock(&self.live).contains(agent)
            && let Some((d, resp)) = at_position
            && d == digest
        {
            used.insert(key);
            self.replayed_calls.fetch_add(1, Ordering::SeqCst);
            return ModelLookup::Hit(Box::new(resp.clone()));
        }
        // The same request, recorded under another agent or position.
        let same = self
            .by_digest
            .get(digest)
            .and_then(|keys| keys.iter().find(|k| !used.contains(*k)));
        if let Some(k) = same.cloned()
            && let Some((_, resp)) = self.model_calls.get(&k)
        {
            used.insert(k);
            self.replayed_calls.fetch_add(1, Ordering::SeqCst);
            return ModelLookup::Hit(Box::new(resp.clone()));
        }
        drop(used);
        let diverged = !lock(&self.live).contains(agent) && at_position.is_some();
        self.go_live(agent);
        if diverged {
            ModelLookup::Diverged
        } else {
            ModelLookup::Miss
        }
    }

    /// The recorded result of a tool call, if any (the agent is replaying).
    pub fn tool_result(&self, agent: &str, call_id: &str) -> Option<String> {
        if lock(&self.live).contains(agent) {
            return None;
        }
        lock(&self.tool_results)
            .get_mut(&(agent.to_string(), call_id.to_string()))
            .and_then(VecDeque::pop_front)
    }

    /// Answers given earlier to these questions, if any.
    pub fn answers(&self, agent: &str, questions: &[String]) -> Option<Vec<String>> {
        let mut a = lock(&self.answers);
        let pos = a
            .iter()
            .position(|(ag, q, _)| ag == agent && q.as_slice() == questions)?;
        a.remove(pos).map(|(_, _, answers)| answers)
    }

    /// From now on this agent works live (a miss, a divergence, or the
    /// end of its replayed work).
    pub fn go_live(&self, agent: &str) {
        lock(&self.live).insert(agent.to_string());
    }

    /// The next recorded answer to this search, in the order asked.
    pub fn search(&self, query: &str, max_results: usize) -> Option<SearchResult> {
        lock(&self.searches)
            .get_mut(&(query.to_string(), max_results))
            .and_then(VecDeque::pop_front)
    }

    /// The recorded answer to an outside call asked this way, in order.
    pub fn external(&self, key: &str) -> Option<Value> {
        lock(&self.externals)
            .get_mut(key)
            .and_then(VecDeque::pop_front)
    }

    /// The next recorded answer to a fetch of `url`, in the order asked.
    pub fn fetch(&self, url: &str) -> Option<FetchResult> {
        lock(&self.fetches)
            .get_mut(url)
            .and_then(VecDeque::pop_front)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock_or_recover()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(agent: &str, index: u64, digest: &str) -> Value {
        json!({"kind": "model_call", "agent": agent, "index": index, "request_digest": digest,
               "model": "m", "response": {"content": format!("{agent}{index}"), "usage": {"input_tokens": 1, "output_tokens": 2}, "model": "m"}})
    }

    #[test]
    fn outside_calls_are_answered_in_the_order_recorded_per_key() {
        let r = Replay::from_lines(&[
            json!({"kind": "external", "key": "mcp:kb__search:{\"query\":\"a\"}", "result": {"Ok": 1}}),
            json!({"kind": "external", "key": "mcp:kb__search:{\"query\":\"a\"}", "result": {"Ok": 2}}),
            json!({"kind": "external", "key": "execute:ab12", "result": {"Err": [true, "no"]}}),
        ]);
        let key = "mcp:kb__search:{\"query\":\"a\"}";
        assert_eq!(r.external(key), Some(json!({"Ok": 1})));
        assert_eq!(r.external(key), Some(json!({"Ok": 2})));
        // Asked a third time: not recorded, so it is called for real.
        assert_eq!(r.external(key), None);
        assert_eq!(
            r.external("execute:ab12"),
            Some(json!({"Err": [true, "no"]}))
        );
        assert_eq!(r.external("execute:other"), None);
        assert_eq!(r.unreadable(), 0);
    }

    #[test]
    fn replays_by_agent_index_and_digest_then_goes_live() {
        let r = Replay::from_lines(&[
            call("main", 0, "d0"),
            call("main", 1, "d1"),
            json!({"kind": "tool_result", "agent": "main", "call_id": "c1", "tool": "t", "args": {}, "ok": true, "result": "R"}),
            json!({"kind": "tool_result", "agent": "main", "call_id": "c1", "tool": "t", "args": {}, "ok": true, "result": "R2"}),
            json!({"kind": "nonsense"}),
        ]);
        assert_eq!(r.unreadable(), 1);
        assert!(r.is_replaying("main"));
        assert!(!r.is_replaying("sub-1"));
        assert!(
            matches!(r.model_call("main", 0, "d0"), ModelLookup::Hit(resp) if resp.content == "main0")
        );
        assert_eq!(r.tool_result("main", "c1").as_deref(), Some("R"));
        assert!(matches!(
            r.model_call("main", 1, "other"),
            ModelLookup::Diverged
        ));
        assert!(!r.is_replaying("main"), "a diverged agent is live");
        assert_eq!(r.tool_result("main", "c1"), None);
        // The very request recorded is still answered by its digest, once.
        assert!(matches!(r.model_call("main", 1, "d1"), ModelLookup::Hit(_)));
        assert!(matches!(r.model_call("main", 2, "d1"), ModelLookup::Miss));
        assert_eq!(r.recorded_tool_results(), 2);
        assert_eq!(r.replayed_calls(), 2);
    }

    #[test]
    fn a_request_recorded_under_another_agent_or_position_is_answered_by_its_digest() {
        // Two claim extractions ran in parallel; on resume they ask in the
        // other order, and a sub-researcher got another number.
        let r = Replay::from_lines(&[
            call("claims", 0, "page-a"),
            call("claims", 1, "page-b"),
            call("sub-2", 0, "aspect-x"),
        ]);
        assert!(
            matches!(r.model_call("claims", 0, "page-b"), ModelLookup::Hit(resp) if resp.content == "claims1")
        );
        assert!(
            matches!(r.model_call("claims", 1, "page-a"), ModelLookup::Hit(resp) if resp.content == "claims0")
        );
        assert!(
            matches!(r.model_call("sub-1", 0, "aspect-x"), ModelLookup::Hit(resp) if resp.content == "sub-20")
        );
        // Each record answers once: the same request again is new.
        assert!(matches!(
            r.model_call("claims", 2, "page-a"),
            ModelLookup::Miss
        ));
        assert_eq!(r.replayed_calls(), 3);
    }

    #[test]
    fn replaying_ends_at_the_first_miss() {
        let r = Replay::from_lines(&[call("sub-1", 0, "a")]);
        assert!(r.is_replaying("sub-1"));
        assert!(matches!(r.model_call("sub-1", 0, "a"), ModelLookup::Hit(_)));
        assert!(r.is_replaying("sub-1"), "records used up, but no miss yet");
        assert!(matches!(r.model_call("sub-1", 1, "b"), ModelLookup::Miss));
        assert!(!r.is_replaying("sub-1"));
    }

    #[test]
    fn searches_fetches_and_answers_come_back_in_order() {
        let r = Replay::from_lines(&[
            json!({"kind": "search", "query": "q", "max_results": 5, "result": {"Ok": []}}),
            json!({"kind": "search", "query": "q", "max_results": 5, "result": {"Err": {"Failed": "down"}}}),
            json!({"kind": "clarification_answers", "agent": "main", "questions": ["Which?"], "answers": ["That"]}),
        ]);
        assert!(matches!(r.search("q", 5), Some(Ok(v)) if v.is_empty()));
        assert!(matches!(r.search("q", 5), Some(Err(_))));
        assert!(r.search("q", 5).is_none());
        assert!(r.fetch("https://x").is_none());
        assert_eq!(r.answers("main", &["Other?".into()]), None);
        assert_eq!(
            r.answers("main", &["Which?".into()]),
            Some(vec!["That".to_string()])
        );
    }
}
