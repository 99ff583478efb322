//! MCP progress notifications for a `research` call: one per meaningful
//! event of the run (start, plan, each sub-researcher done, each source
//! accepted with the count so far, the report, the end), sent only when
//! the caller gave a progressToken. Text from outside (titles, aspects) is
//! cleaned to one line and cut short.

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RequestContext, RoleServer};
use tokio::sync::mpsc;

use crate::protocol::{Event, EventBody, StatusState, SubagentState};

/// The longest progress message, in characters.
const MAX_MESSAGE_CHARS: usize = 200;

/// What the caller is told about one event, if anything. `sources` counts
/// the sources accepted so far.
pub fn message(ev: &Event, sources: &mut usize) -> Option<String> {
    let text = match &ev.body {
        EventBody::RunStart { .. } => format!("run {} started", ev.run_id),
        EventBody::Plan { todos, .. } => {
            let aspects: Vec<String> = todos.iter().map(|t| one_line(&t.content)).collect();
            format!("plan: {} aspects: {}", todos.len(), aspects.join("; "))
        }
        EventBody::Subagent {
            unit,
            state: SubagentState::Done,
            description,
        } => format!("sub-researcher {unit} done: {}", one_line(description)),
        EventBody::Source { title, .. } => {
            *sources += 1;
            format!("{} sources so far (latest: {})", sources, one_line(title))
        }
        EventBody::Clarification { questions } => format!(
            "dra needs to know more: {}",
            questions
                .iter()
                .map(|q| one_line(q))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        EventBody::Report { markdown, .. } => {
            format!("report written ({} characters)", markdown.chars().count())
        }
        EventBody::Status(s) if s.state.is_terminal() => {
            let reason = s.reason.map(|r| r.as_str().to_string()).unwrap_or_default();
            let state = if s.state == StatusState::Done {
                "done"
            } else {
                "error"
            };
            format!("{state} ({reason})")
        }
        _ => return None,
    };
    Some(cut(&text))
}

fn one_line(s: &str) -> String {
    crate::document::single_line(&crate::document::sanitize_text(s))
}

fn cut(s: &str) -> String {
    if s.chars().count() <= MAX_MESSAGE_CHARS {
        return s.to_string();
    }
    let mut out: String = s.chars().take(MAX_MESSAGE_CHARS - 1).collect();
    out.push('\u{2026}');
    out
}

/// Where a run stands, as progress values: whole steps (the start, the
/// plan, each sub-researcher done, the report, the end) and, between two
/// steps, sources as fractions that never reach the next one, so values
/// always increase. The total is known from the plan (its aspects and
/// four steps around them), is raised if more steps come, and is the
/// last value at the end.
#[derive(Debug, Default)]
pub struct Steps {
    done: f64,
    between: i32,
    total: Option<f64>,
}

impl Steps {
    /// The progress value and total of one notified event.
    pub fn advance(&mut self, ev: &Event) -> (f64, Option<f64>) {
        if let EventBody::Plan { todos, .. } = &ev.body {
            self.total = Some(todos.len() as f64 + 4.0);
        }
        if matches!(
            ev.body,
            EventBody::Source { .. } | EventBody::Clarification { .. }
        ) {
            self.between += 1;
            return (self.done + 1.0 - 0.5f64.powi(self.between), self.total);
        }
        self.done += 1.0;
        self.between = 0;
        let end = matches!(&ev.body, EventBody::Status(s) if s.state.is_terminal());
        self.total = match self.total {
            _ if end => Some(self.done),
            Some(t) => Some(t.max(self.done + 1.0)),
            None => None,
        };
        (self.done, self.total)
    }
}

/// One notification: its value, the total when known, and the message.
type Note = (f64, Option<f64>, String);

/// Sends a call's progress notifications in order, off the event loop.
pub struct Reporter {
    tx: Option<mpsc::UnboundedSender<Note>>,
    task: Option<tokio::task::JoinHandle<()>>,
    sources: usize,
    steps: Steps,
}

impl Reporter {
    /// A reporter for this request: silent without a progressToken.
    pub fn start(context: &RequestContext<RoleServer>) -> Reporter {
        let Some(token) = context.meta.get_progress_token() else {
            return Reporter {
                tx: None,
                task: None,
                sources: 0,
                steps: Steps::default(),
            };
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(send_all(context.peer.clone(), token, rx));
        Reporter {
            tx: Some(tx),
            task: Some(task),
            sources: 0,
            steps: Steps::default(),
        }
    }

    pub fn on_event(&mut self, ev: &Event) {
        if let (Some(tx), Some(m)) = (&self.tx, message(ev, &mut self.sources)) {
            let (value, total) = self.steps.advance(ev);
            let _ = tx.send((value, total, m));
        }
    }

    /// Waits until every notification is sent, so they all arrive before
    /// the call's result.
    pub async fn finish(mut self) {
        self.tx.take();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

async fn send_all(
    peer: Peer<RoleServer>,
    token: ProgressToken,
    mut rx: mpsc::UnboundedReceiver<Note>,
) {
    while let Some((value, total, message)) = rx.recv().await {
        let mut param = ProgressNotificationParam::new(token.clone(), value).with_message(message);
        if let Some(total) = total {
            param = param.with_total(total);
        }
        if let Err(e) = peer.notify_progress(param).await {
            // The caller went away: the run goes on to its end (or is
            // interrupted by the cancellation), but nobody hears of it.
            tracing::debug!("progress notification not sent: {e}");
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(body: EventBody) -> Event {
        Event {
            seq: 1,
            ts: "2026-12-01T00:00:00Z".into(),
            run_id: "abc".into(),
            agent: "main".into(),
            body,
        }
    }

    #[test]
    fn meaningful_events_become_one_clean_line_each() {
        let mut n = 0;
        let m = message(
            &ev(EventBody::Source {
                title: "Pricing\u{1b}[31m\nPage".into(),
                url: "https://x.example".into(),
                domain: "x.example".into(),
                index: 1,
            }),
            &mut n,
        )
        .unwrap();
        assert_eq!(n, 1);
        assert!(
            m.starts_with("1 sources so far") && !m.contains('\u{1b}') && !m.contains('\n'),
            "{m}"
        );
        assert!(
            message(&ev(EventBody::Thinking { text: "hm".into() }), &mut n).is_none(),
            "thinking is not progress"
        );
        let long = "x".repeat(500);
        let m = message(
            &ev(EventBody::Report {
                markdown: long,
                report_path: None,
            }),
            &mut n,
        )
        .unwrap();
        assert!(m.contains("500 characters"));
    }

    #[test]
    fn values_increase_and_end_at_the_total() {
        let mut steps = Steps::default();
        let todo = |i: usize| crate::protocol::Todo {
            id: i.to_string(),
            content: format!("aspect {i}"),
            status: Default::default(),
        };
        let sub = || EventBody::Subagent {
            unit: "sub-1".into(),
            state: SubagentState::Done,
            description: "d".into(),
        };
        let source = || EventBody::Source {
            title: "t".into(),
            url: "u".into(),
            domain: "d".into(),
            index: 1,
        };
        let bodies = vec![
            EventBody::Thinking {
                text: "the start".into(),
            },
            EventBody::Plan {
                todos: vec![todo(1), todo(2)],
                kind: None,
            },
            source(),
            source(),
            sub(),
            source(),
            sub(),
            EventBody::Report {
                markdown: "r".into(),
                report_path: None,
            },
            EventBody::Status(crate::protocol::Status {
                state: StatusState::Done,
                reason: None,
                detail: None,
            }),
        ];
        let seen: Vec<(f64, Option<f64>)> =
            bodies.into_iter().map(|b| steps.advance(&ev(b))).collect();
        assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "{seen:?}");
        // The plan's two aspects and four steps around them.
        assert_eq!(seen[1], (2.0, Some(6.0)));
        assert!(
            seen.iter().all(|(v, t)| t.is_none_or(|t| *v <= t)),
            "{seen:?}"
        );
        assert_eq!(seen.last(), Some(&(6.0, Some(6.0))));
    }

    proptest::proptest! {
        #[test]
        fn any_outside_text_becomes_one_short_clean_line(
            title in "\\PC{0,300}|[\\x00-\\x1f\\x7f-\\x9f\\u{202e}a-z ]{0,300}",
            aspects in proptest::collection::vec("\\PC{0,60}", 0..8),
        ) {
            let mut n = 0;
            let bodies = [
                EventBody::Source { title: title.clone(), url: "u".into(), domain: "d".into(), index: 1 },
                EventBody::Plan {
                    todos: aspects.iter().enumerate().map(|(i, a)| crate::protocol::Todo {
                        id: i.to_string(),
                        content: a.clone(),
                        status: Default::default(),
                    }).collect(),
                    kind: None,
                },
                EventBody::Clarification { questions: vec![title.clone()] },
            ];
            for body in bodies {
                let m = message(&ev(body), &mut n).unwrap();
                proptest::prop_assert!(m.chars().count() <= MAX_MESSAGE_CHARS);
                proptest::prop_assert!(!m.chars().any(|c| c.is_control()), "{m:?}");
                proptest::prop_assert!(!m.contains('\u{202e}'), "{m:?}");
            }
        }
    }
}
