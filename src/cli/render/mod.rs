//! Renderers consume events; they never drive the engine.

mod human;

use super::GlobalArgs;
use crate::engine::RunSummary;
use crate::protocol::Event;

pub enum Renderer {
    /// `--json`: every event as one line on stdout, nothing else.
    Json {
        broken_pipe: bool,
    },
    Human(human::Human),
}

impl Renderer {
    pub fn new(g: &GlobalArgs) -> Self {
        if g.json {
            Renderer::Json { broken_pipe: false }
        } else {
            Renderer::Human(human::Human::new(g))
        }
    }

    pub fn on_event(&mut self, ev: &Event) {
        match self {
            Renderer::Json { broken_pipe } => {
                if *broken_pipe {
                    return;
                }
                let mut line = serde_json::to_string(ev).unwrap_or_default();
                line.push('\n');
                if !super::print_stdout(line.as_bytes()) {
                    *broken_pipe = true;
                }
            }
            Renderer::Human(h) => h.on_event(ev),
        }
    }

    /// A message from the front end itself (not an event).
    pub fn note(&mut self, text: &str) {
        match self {
            Renderer::Json { .. } => errln!("dra: {text}"),
            Renderer::Human(h) => h.line(text),
        }
    }

    /// Runs `f` with the live rows hidden (around a prompt).
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match self {
            Renderer::Json { .. } => f(),
            Renderer::Human(h) => h.suspend(f),
        }
    }

    pub fn abandon(&mut self) {
        if let Renderer::Human(h) = self {
            h.clear();
        }
    }

    pub fn finish(&mut self, summary: &RunSummary) {
        if let Renderer::Human(h) = self {
            h.finish(summary);
        }
    }
}
