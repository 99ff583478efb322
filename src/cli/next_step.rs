//! What a run that did not finish for good tells the person who started
//! it: the questions it waits on and the exact `dra resume` line. Printed
//! on stderr whatever `-q` or `--json` say (stdout stays the contract).

use crate::engine::RunSummary;
use crate::protocol::{StatusReason, StatusState};

/// What the front end saw of a run that it needs to say how to continue.
#[derive(Debug, Default)]
pub struct Pause {
    pub run_id: String,
    /// The questions of the run's last clarification that went unanswered.
    pub questions: Vec<String>,
    /// Whether the live rows already showed those questions.
    pub questions_shown: bool,
}

impl Pause {
    /// Notes what an event tells of the run's id and its open questions.
    pub fn saw(&mut self, ev: &crate::protocol::Event, g: &super::GlobalArgs) {
        if self.run_id.is_empty() {
            self.run_id = ev.run_id.clone();
        }
        if let crate::protocol::EventBody::Clarification { questions } = &ev.body {
            self.questions = questions.clone();
            self.questions_shown = !g.quiet && !g.json;
        }
    }
}

/// A paused run's questions (unless shown already) and the line that
/// answers them.
pub fn waiting(pause: &Pause) -> Vec<String> {
    let id = &pause.run_id;
    let mut out = Vec::new();
    if !pause.questions_shown && !pause.questions.is_empty() {
        out.push(format!("dra: run {id} is waiting for answers to:"));
        for (i, q) in pause.questions.iter().enumerate() {
            out.push(format!("  {}. {}", i + 1, super::clarify::printable(q)));
        }
    }
    let n = pause.questions.len().max(1);
    let answers = vec!["--answer \"...\""; n].join(" ");
    out.push(format!(
        "dra: to continue, answer in question order (\"\" = no preference): dra resume {id} {answers}"
    ));
    out
}

/// The lines that say how to continue the run, if it can go on.
pub fn lines(pause: &Pause, summary: &RunSummary) -> Vec<String> {
    let id = &pause.run_id;
    if id.is_empty() {
        return Vec::new();
    }
    match (summary.state, summary.reason) {
        (StatusState::Done, StatusReason::AwaitingClarification) => waiting(pause),
        (StatusState::Done, _) => Vec::new(),
        // Resuming would only end the same way.
        (_, StatusReason::QuestionUnclear | StatusReason::NoVerifiedSource) => Vec::new(),
        (_, StatusReason::BudgetExhausted) => vec![format!(
            "dra: to continue with a larger budget: dra resume {id} --max-usd N (or --max-tool-calls N, --deadline D)"
        )],
        _ => vec![format!(
            "dra: to continue where it stopped: dra resume {id}"
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(state: StatusState, reason: StatusReason) -> RunSummary {
        RunSummary {
            state,
            reason,
            detail: None,
            run_dir: "/r/20261207T000000Z-ab12cd34".into(),
            report_path: None,
            sources: 0,
            total_tokens: 0,
            cached_tokens: 0,
            cost_usd: 0.0,
            duration: std::time::Duration::ZERO,
            tool_calls: 0,
            replayed: None,
        }
    }

    #[test]
    fn a_paused_run_lists_its_questions_and_the_resume_line() {
        let pause = Pause {
            run_id: "ab12cd34".into(),
            questions: vec!["Which Quokka do you mean?".into(), "Which year?".into()],
            questions_shown: false,
        };
        let out = lines(
            &pause,
            &summary(StatusState::Done, StatusReason::AwaitingClarification),
        );
        assert_eq!(out[1], "  1. Which Quokka do you mean?");
        assert!(
            out.last()
                .unwrap()
                .ends_with("dra resume ab12cd34 --answer \"...\" --answer \"...\""),
            "{out:?}"
        );
        // Shown already in the live rows: only the way on.
        let shown = Pause {
            questions_shown: true,
            ..pause
        };
        let out = lines(
            &shown,
            &summary(StatusState::Done, StatusReason::AwaitingClarification),
        );
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn only_endings_a_resume_can_change_say_how_to_resume() {
        let pause = Pause {
            run_id: "ab12cd34".into(),
            ..Pause::default()
        };
        let said = |state, reason| lines(&pause, &summary(state, reason));
        assert!(said(StatusState::Done, StatusReason::ReportDelivered).is_empty());
        assert!(said(StatusState::Error, StatusReason::QuestionUnclear).is_empty());
        assert_eq!(
            said(StatusState::Error, StatusReason::Interrupted),
            vec!["dra: to continue where it stopped: dra resume ab12cd34"]
        );
        assert!(said(StatusState::Error, StatusReason::BudgetExhausted)[0].contains("--max-usd"));
    }
}
