//! The run's event emitter: numbers each event, stamps it, and hands it to
//! the recorder (events.jsonl); on resume it keeps quiet about steps
//! being replayed.

use crate::sync::LockExt;
use std::sync::{Arc, Mutex};

use super::replay::Replay;
use crate::protocol::{Event, EventBody, Status, StatusReason, StatusState, WarningCode};
use crate::store::{Record, RecorderHandle};

/// Assigns `seq`, `ts`, `run_id` and `agent`, and hands events to the recorder.
#[derive(Clone)]
pub struct Emitter {
    run_id: String,
    seq: Arc<Mutex<u64>>,
    recorder: RecorderHandle,
    /// On resume: events of agents still replaying are already on disk.
    replay: Option<Arc<Replay>>,
}

impl Emitter {
    pub fn new(run_id: String, recorder: RecorderHandle) -> Self {
        Emitter {
            run_id,
            seq: Arc::new(Mutex::new(0)),
            recorder,
            replay: None,
        }
    }

    /// A resumed run's emitter: `seq` continues after `last_seq`, and
    /// replayed steps are not emitted twice.
    pub fn resumed(mut self, last_seq: u64, replay: Arc<Replay>) -> Self {
        self.seq = Arc::new(Mutex::new(last_seq));
        self.replay = Some(replay);
        self
    }

    pub fn emit(&self, agent: &str, body: EventBody) {
        let always = match &body {
            EventBody::RunResumed { .. }
            | EventBody::ClarificationAnswered { .. }
            | EventBody::Report { .. }
            | EventBody::Usage { .. } => true,
            // A security note is about this invocation: never swallowed
            // by the replay of earlier ones.
            EventBody::Warning {
                code: crate::protocol::WarningCode::Security,
                ..
            } => true,
            EventBody::Status(s) => s.state.is_terminal(),
            _ => false,
        };
        if !always && self.replay.as_ref().is_some_and(|r| r.is_replaying(agent)) {
            return;
        }
        // Numbering and sending under one lock keeps events.jsonl in seq order.
        let mut seq = self.seq.lock_or_recover();
        *seq += 1;
        self.recorder.event(Event {
            seq: *seq,
            ts: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            run_id: self.run_id.clone(),
            agent: agent.to_string(),
            body,
        });
    }

    pub fn status(
        &self,
        agent: &str,
        state: StatusState,
        reason: Option<StatusReason>,
        detail: Option<String>,
    ) {
        self.emit(
            agent,
            EventBody::Status(Status {
                state,
                reason,
                detail,
            }),
        );
    }

    pub fn warning(&self, agent: &str, code: WarningCode, message: impl Into<String>) {
        self.emit(
            agent,
            EventBody::Warning {
                code,
                message: message.into(),
            },
        );
    }

    /// Writes a checkpoint record; returns once it is on disk.
    pub async fn record(&self, record: Record) {
        self.recorder.record(record).await;
    }
}
