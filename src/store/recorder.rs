//! The one writer of events.jsonl and records.jsonl. Agents send it events
//! and records over a channel; it appends each line (persist first) and only
//! then forwards the event to the front end (render second).

use std::fs::File;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::document::{RawDocument, sanitize_text};
use crate::ports::{SearchHit, WebError};
use crate::protocol::{Event, EventBody, MAIN_AGENT, Status, StatusReason, StatusState};

use super::{RunDir, RunHeader};

/// A completed step, recorded so a later `dra resume` can replay it instead
/// of paying for it twice: model calls, tool results, the search and fetch
/// answers tools read, and the user's answers to clarifying questions.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    /// The first record: what resume needs to set the run up again (the
    /// inputs as the composition root understood them, the spotlight
    /// marker the prompts carry, the run's date).
    Start {
        inputs: Value,
        spotlight: String,
        today: String,
    },
    /// A search backend's answer, in the order asked.
    Search {
        query: String,
        max_results: usize,
        result: Result<Vec<SearchHit>, WebError>,
    },
    /// A fetcher's answer, in the order asked.
    Fetch {
        url: String,
        result: Result<RawDocument, WebError>,
    },
    /// The user's answers to a clarification, paired with its questions.
    ClarificationAnswers {
        agent: String,
        questions: Vec<String>,
        answers: Vec<String>,
    },
    ModelCall {
        agent: String,
        /// Position of this call among the agent's model calls.
        index: u64,
        /// SHA-256 of the request, so a replay can tell a changed prompt.
        request_digest: String,
        model: String,
        response: Value,
    },
    ToolResult {
        agent: String,
        call_id: String,
        tool: String,
        args: Value,
        ok: bool,
        result: String,
    },
    /// An answer from outside the run that costs or acts (an MCP call, a
    /// custom tool, code run in the sandbox), by what was asked (`key`), in
    /// the order asked: a resumed run is answered from it instead of asking
    /// again.
    External { key: String, result: Value },
}

enum Msg {
    Event(Box<Event>),
    /// A record, and who waits until it is written.
    Record(Box<Record>, tokio::sync::oneshot::Sender<()>),
    /// The front end is leaving without waiting (a second signal).
    Close {
        detail: String,
        done: tokio::sync::oneshot::Sender<()>,
    },
}

/// Cheap to clone; every agent holds one.
#[derive(Clone)]
pub struct RecorderHandle {
    tx: mpsc::UnboundedSender<Msg>,
}

impl RecorderHandle {
    pub fn event(&self, event: Event) {
        // The recorder only stops after every handle is dropped.
        let _ = self.tx.send(Msg::Event(Box::new(event)));
    }

    /// Appends a record and returns once it is written (handed to the
    /// operating system, so a SIGKILL right after cannot lose it): the run
    /// takes its next step only after the checkpoint of this one.
    pub async fn record(&self, record: Record) {
        let (done, written) = tokio::sync::oneshot::channel();
        if self.tx.send(Msg::Record(Box::new(record), done)).is_ok() {
            // A writer that stopped (it failed, or the run is closing)
            // drops the sender: nothing more to wait for.
            let _ = written.await;
        }
    }

    /// A handle that can end the record from outside the run, without
    /// keeping the writer alive.
    pub fn closer(&self) -> RecorderCloser {
        RecorderCloser {
            tx: self.tx.downgrade(),
        }
    }
}

/// Ends events.jsonl when the front end exits without waiting for the run
/// (a second Ctrl-C or SIGTERM): the writer appends a terminal `status`
/// (unless the run already wrote one) and ignores every later event, so the
/// log still ends with exactly one terminal status line.
#[derive(Clone)]
pub struct RecorderCloser {
    tx: mpsc::WeakUnboundedSender<Msg>,
}

impl RecorderCloser {
    /// Returns whether the writer confirmed within `wait` (false when the
    /// record was already complete and the writer gone: nothing to add).
    pub async fn close(&self, detail: String, wait: std::time::Duration) -> bool {
        let Some(tx) = self.tx.upgrade() else {
            return false;
        };
        let (done, confirmed) = tokio::sync::oneshot::channel();
        if tx.send(Msg::Close { detail, done }).is_err() {
            return false;
        }
        drop(tx);
        matches!(tokio::time::timeout(wait, confirmed).await, Ok(Ok(())))
    }
}

/// An event with every string cleaned of control sequences and bidi
/// overrides (page titles, quotes, URLs and messages come from outside);
/// newlines and tabs stay. Unchanged events are passed through as they are.
pub fn sanitized(ev: Event) -> Event {
    fn walk(v: &mut Value) -> bool {
        match v {
            Value::String(s) => match sanitize_text(s) {
                std::borrow::Cow::Borrowed(_) => false,
                std::borrow::Cow::Owned(clean) => {
                    *s = clean;
                    true
                }
            },
            Value::Array(items) => items.iter_mut().fold(false, |acc, i| walk(i) | acc),
            Value::Object(map) => map.values_mut().fold(false, |acc, i| walk(i) | acc),
            _ => false,
        }
    }
    let Ok(mut value) = serde_json::to_value(&ev) else {
        return ev;
    };
    if !walk(&mut value) {
        return ev;
    }
    serde_json::from_value(value).unwrap_or(ev)
}

pub struct Recorder;

/// How often the writer makes the run files durable (fsync): within
/// `every` of a line being written, after `lines` lines, and always before
/// the run uses a paid or acting call's answer (a model call, an outside
/// call), so a power cut loses at most that window, never a paid answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupCommit {
    pub every: std::time::Duration,
    pub lines: usize,
}

impl Default for GroupCommit {
    fn default() -> Self {
        GroupCommit {
            every: std::time::Duration::from_millis(250),
            lines: 32,
        }
    }
}

/// Lines written since the last fsync, and when the first of them was.
#[derive(Debug)]
struct Pending {
    lines: usize,
    since: std::time::Instant,
}

impl Pending {
    fn new() -> Self {
        Pending {
            lines: 0,
            since: std::time::Instant::now(),
        }
    }

    fn wrote(&mut self, now: std::time::Instant) {
        if self.lines == 0 {
            self.since = now;
        }
        self.lines += 1;
    }

    /// How long the writer may wait for the next line before it syncs
    /// (`None`: nothing pending, wait as long as it takes).
    fn wait(&self, sync: GroupCommit, now: std::time::Instant) -> Option<std::time::Duration> {
        (self.lines > 0).then(|| sync.every.saturating_sub(now - self.since))
    }

    fn full(&self, sync: GroupCommit) -> bool {
        self.lines >= sync.lines
    }

    fn synced(&mut self) {
        self.lines = 0;
    }
}

impl Record {
    /// Whether the record holds an answer that cost money or acted.
    fn is_paid(&self) -> bool {
        matches!(self, Record::ModelCall { .. } | Record::External { .. })
    }
}

/// The writer's handle, its event stream and its task.
pub type Spawned = (
    RecorderHandle,
    mpsc::UnboundedReceiver<Event>,
    tokio::task::JoinHandle<std::io::Result<()>>,
);

/// Creates (truncates) a run file writable by its owner only, whatever the
/// umask: `dra resume` refuses run files others may write.
fn create_private(path: &std::path::Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(path)
}

impl Recorder {
    /// Writes the header, then spawns the writer task. Events come out of the
    /// returned receiver after they are on disk.
    pub fn spawn(
        run_dir: &RunDir,
        header: &RunHeader,
        sync: GroupCommit,
    ) -> std::io::Result<Spawned> {
        super::reserve::make(run_dir.path());
        let mut events = create_private(&run_dir.events_path())?;
        let mut line = serde_json::to_vec(header)?;
        line.push(b'\n');
        super::reserve::write_all(&mut events, &line, run_dir.path())?;
        let records = create_private(&run_dir.records_path())?;
        Ok(Self::writer(
            Files {
                events,
                records,
                dir: run_dir.path().to_path_buf(),
            },
            header.run_id.clone(),
            sync,
        ))
    }

    /// Continues a run's files (`dra resume`): both are appended to, never
    /// rewritten; their torn tails were cut off before (see `checkpoint`).
    pub fn append(run_dir: &RunDir, run_id: &str, sync: GroupCommit) -> std::io::Result<Spawned> {
        super::reserve::make(run_dir.path());
        let open = |p: std::path::PathBuf| {
            std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(p)
        };
        Ok(Self::writer(
            Files {
                events: open(run_dir.events_path())?,
                records: open(run_dir.records_path())?,
                dir: run_dir.path().to_path_buf(),
            },
            run_id.to_string(),
            sync,
        ))
    }

    fn writer(mut files: Files, run_id: String, sync: GroupCommit) -> Spawned {
        let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
        let (out_tx, out_rx) = mpsc::unbounded_channel::<Event>();
        let rt = tokio::runtime::Handle::current();
        let join = tokio::task::spawn_blocking(move || -> std::io::Result<()> {
            let mut last_seq = 0;
            let mut terminal = false;
            let mut closed = false;
            let mut pending = Pending::new();
            loop {
                let msg = match pending.wait(sync, std::time::Instant::now()) {
                    None => rx.blocking_recv(),
                    Some(left) => match rt.block_on(tokio::time::timeout(left, rx.recv())) {
                        Ok(m) => m,
                        Err(_) => {
                            files.sync()?;
                            pending.synced();
                            continue;
                        }
                    },
                };
                let Some(msg) = msg else { break };
                pending.wrote(std::time::Instant::now());
                match msg {
                    Msg::Event(_) if closed => {}
                    Msg::Event(ev) => {
                        let ev = sanitized(*ev);
                        files.event(&ev)?;
                        last_seq = ev.seq;
                        terminal |=
                            matches!(&ev.body, EventBody::Status(s) if s.state.is_terminal());
                        // A front end that went away does not stop the record.
                        let _ = out_tx.send(ev);
                    }
                    Msg::Record(rec, done) => {
                        files.record(&rec)?;
                        if rec.is_paid() {
                            files.sync()?;
                            pending.synced();
                        }
                        let _ = done.send(());
                    }
                    Msg::Close { detail, done } => {
                        if !terminal && !closed {
                            let ev = Event {
                                seq: last_seq + 1,
                                ts: chrono::Utc::now()
                                    .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                                run_id: run_id.clone(),
                                agent: MAIN_AGENT.to_string(),
                                body: EventBody::Status(Status {
                                    state: StatusState::Error,
                                    reason: Some(StatusReason::Interrupted),
                                    detail: Some(sanitize_text(&detail).into_owned()),
                                }),
                            };
                            files.event(&ev)?;
                            files.events.sync_all()?;
                        }
                        closed = true;
                        let _ = done.send(());
                    }
                }
                if pending.full(sync) {
                    files.sync()?;
                    pending.synced();
                }
            }
            files.events.sync_all()?;
            files.records.sync_all()?;
            let _ = std::fs::remove_file(files.dir.join(super::reserve::FILE));
            Ok(())
        });
        (RecorderHandle { tx }, out_rx, join)
    }
}

/// The two logs, each line written whole (unbuffered, so a line is with
/// the OS once written), drawing on the run's disk reserve when full.
struct Files {
    events: File,
    records: File,
    dir: std::path::PathBuf,
}

impl Files {
    fn event(&mut self, ev: &Event) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(ev)?;
        line.push(b'\n');
        super::reserve::write_all(&mut self.events, &line, &self.dir)
    }

    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(rec)?;
        line.push(b'\n');
        super::reserve::write_all(&mut self.records, &line, &self.dir)
    }

    /// Makes what was written durable (the data; sizes follow).
    fn sync(&mut self) -> std::io::Result<()> {
        self.records.sync_data()?;
        self.events.sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::FindingRow;
    use proptest::prelude::*;

    fn event(body: EventBody) -> Event {
        Event {
            seq: 1,
            ts: "2026-01-01T00:00:00.000Z".into(),
            run_id: "r".into(),
            agent: "sub-1".into(),
            body,
        }
    }

    fn is_clean(text: &str) -> bool {
        !text.contains('\u{1b}') && crate::document::sanitize::is_clean(text)
    }

    #[test]
    fn group_commit_syncs_within_its_window_or_after_its_lines() {
        let sync = GroupCommit {
            every: std::time::Duration::from_millis(250),
            lines: 3,
        };
        let t0 = std::time::Instant::now();
        let ms = |n| t0 + std::time::Duration::from_millis(n);
        let mut p = Pending::new();
        assert_eq!(p.wait(sync, t0), None, "nothing pending: no deadline");
        p.wrote(ms(0));
        p.wrote(ms(100));
        // The window counts from the first pending line.
        assert_eq!(
            p.wait(sync, ms(200)),
            Some(std::time::Duration::from_millis(50))
        );
        assert_eq!(p.wait(sync, ms(400)), Some(std::time::Duration::ZERO));
        assert!(!p.full(sync));
        p.wrote(ms(120));
        assert!(p.full(sync));
        p.synced();
        assert_eq!(p.wait(sync, ms(500)), None);
        p.wrote(ms(600));
        assert_eq!(
            p.wait(sync, ms(600)),
            Some(std::time::Duration::from_millis(250))
        );
        assert!(
            Record::ModelCall {
                agent: "main".into(),
                index: 0,
                request_digest: "d".into(),
                model: "m".into(),
                response: Value::Null
            }
            .is_paid()
        );
        assert!(
            !Record::Fetch {
                url: "u".into(),
                result: Err(WebError::NotFound("x".into()))
            }
            .is_paid()
        );
    }

    proptest! {
        /// Whatever bytes a page title or quote holds, the events written
        /// and shown carry no control sequence or bidi override.
        #[test]
        fn no_control_sequence_in_titles_or_quotes(title in proptest::collection::vec(any::<u8>(), 0..120),
                                                    quote in proptest::collection::vec(any::<u8>(), 0..120)) {
            let title = String::from_utf8_lossy(&title).into_owned();
            let quote = String::from_utf8_lossy(&quote).into_owned();
            let source = sanitized(event(EventBody::Source {
                title: format!("\u{1b}]0;x\u{7}{title}"),
                url: format!("https://a.example/{title}"),
                domain: "a.example".into(),
                index: 1,
            }));
            match &source.body {
                EventBody::Source { title, url, .. } => prop_assert!(is_clean(title) && is_clean(url)),
                other => prop_assert!(false, "{other:?}"),
            }
            let findings = sanitized(event(EventBody::SubagentFindings {
                unit: "sub-1".into(),
                summary: quote.clone(),
                findings: vec![FindingRow { finding: quote.clone(), evidence: format!("\u{1b}[2J{quote}\u{202e}"), source: "[1]".into() }],
                gaps: vec![quote.clone()],
            }));
            let line = serde_json::to_string(&findings).unwrap_or_default();
            prop_assert!(!line.contains("\\u001b") && is_clean(&line), "{line}");
        }
    }

    #[tokio::test]
    async fn closing_appends_one_terminal_status_and_ignores_later_events() {
        let dir = tempfile::tempdir().unwrap();
        let run_dir = RunDir::create(dir.path(), "abcd1234").unwrap();
        let header = RunHeader {
            kind: "run_header".into(),
            protocol_version: 1,
            dra_version: "0".into(),
            run_id: "abcd1234".into(),
            question: "q".into(),
            created: "now".into(),
            settings: serde_json::json!({}),
        };
        let (handle, mut out, join) =
            Recorder::spawn(&run_dir, &header, GroupCommit::default()).unwrap();
        handle.event(event(EventBody::Thinking { text: "a".into() }));
        let closer = handle.closer();
        assert!(
            closer
                .close("SIGINT again".into(), std::time::Duration::from_secs(5))
                .await
        );
        handle.event(Event {
            seq: 2,
            ..event(EventBody::Thinking {
                text: "late".into(),
            })
        });
        drop(handle);
        join.await.unwrap().unwrap();
        let text = std::fs::read_to_string(run_dir.events_path()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        let last: Event = serde_json::from_str(lines[2]).unwrap();
        assert_eq!(last.seq, 2);
        assert!(
            matches!(last.body, EventBody::Status(s) if s.state.is_terminal() && s.reason == Some(StatusReason::Interrupted))
        );
        assert!(out.recv().await.is_some());
        // The writer is gone: a second close has nothing to add.
        assert!(
            !closer
                .close("again".into(), std::time::Duration::from_millis(100))
                .await
        );
    }
}
