//! The one writer of events.jsonl and records.jsonl. Agents send it events
//! and records over a channel; it appends each line (persist first) and only
//! then forwards the event to the front end (render second).

use std::fs::File;
use std::io::{BufWriter, Write};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::document::RawDocument;
use crate::ports::{SearchHit, WebError};
use crate::protocol::Event;

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
}

enum Msg {
    Event(Box<Event>),
    Record(Box<Record>),
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

    pub fn record(&self, record: Record) {
        let _ = self.tx.send(Msg::Record(Box::new(record)));
    }
}

pub struct Recorder;

/// The writer's handle, its event stream and its task.
pub type Spawned = (
    RecorderHandle,
    mpsc::UnboundedReceiver<Event>,
    tokio::task::JoinHandle<std::io::Result<()>>,
);

impl Recorder {
    /// Writes the header, then spawns the writer task. Events come out of the
    /// returned receiver after they are on disk.
    pub fn spawn(run_dir: &RunDir, header: &RunHeader) -> std::io::Result<Spawned> {
        let mut events = BufWriter::new(File::create(run_dir.events_path())?);
        serde_json::to_writer(&mut events, header)?;
        events.write_all(b"\n")?;
        events.flush()?;
        let records = BufWriter::new(File::create(run_dir.records_path())?);
        Ok(Self::writer(events, records))
    }

    /// Continues a run's files (`dra resume`): both are appended to, never
    /// rewritten; their torn tails were cut off before (see `checkpoint`).
    pub fn append(run_dir: &RunDir) -> std::io::Result<Spawned> {
        let open = |p: std::path::PathBuf| {
            std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(p)
                .map(BufWriter::new)
        };
        Ok(Self::writer(
            open(run_dir.events_path())?,
            open(run_dir.records_path())?,
        ))
    }

    fn writer(mut events: BufWriter<File>, mut records: BufWriter<File>) -> Spawned {
        let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
        let (out_tx, out_rx) = mpsc::unbounded_channel::<Event>();
        let join = tokio::task::spawn_blocking(move || -> std::io::Result<()> {
            while let Some(msg) = rx.blocking_recv() {
                match msg {
                    Msg::Event(ev) => {
                        serde_json::to_writer(&mut events, &ev)?;
                        events.write_all(b"\n")?;
                        events.flush()?;
                        // A front end that went away does not stop the record.
                        let _ = out_tx.send(*ev);
                    }
                    Msg::Record(rec) => {
                        serde_json::to_writer(&mut records, &rec)?;
                        records.write_all(b"\n")?;
                        records.flush()?;
                    }
                }
            }
            events.get_ref().sync_all()?;
            records.get_ref().sync_all()?;
            Ok(())
        });
        (RecorderHandle { tx }, out_rx, join)
    }
}
