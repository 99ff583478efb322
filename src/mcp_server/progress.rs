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

/// Sends a call's progress notifications in order, off the event loop.
pub struct Reporter {
    tx: Option<mpsc::UnboundedSender<String>>,
    task: Option<tokio::task::JoinHandle<()>>,
    sources: usize,
}

impl Reporter {
    /// A reporter for this request: silent without a progressToken.
    pub fn start(context: &RequestContext<RoleServer>) -> Reporter {
        let Some(token) = context.meta.get_progress_token() else {
            return Reporter {
                tx: None,
                task: None,
                sources: 0,
            };
        };
        let (tx, rx) = mpsc::unbounded_channel();
        let task = tokio::spawn(send_all(context.peer.clone(), token, rx));
        Reporter {
            tx: Some(tx),
            task: Some(task),
            sources: 0,
        }
    }

    pub fn on_event(&mut self, ev: &Event) {
        if let (Some(tx), Some(m)) = (&self.tx, message(ev, &mut self.sources)) {
            let _ = tx.send(m);
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
    mut rx: mpsc::UnboundedReceiver<String>,
) {
    let mut n = 0.0;
    while let Some(message) = rx.recv().await {
        n += 1.0;
        let param = ProgressNotificationParam::new(token.clone(), n).with_message(message);
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
