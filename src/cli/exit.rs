//! Exit codes: a documented, tested contract for scripts.

use crate::protocol::{StatusReason, StatusState};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// Report delivered (or a direct answer); `doctor` found nothing wrong; lint clean.
    Ok = 0,
    /// The run failed; `doctor` found a problem; lint found problems.
    Failure = 1,
    /// Usage or configuration error: bad flag, malformed setting, unreadable corpus.
    Usage = 2,
    /// The run stopped to ask clarifying questions.
    AwaitingClarification = 3,
    /// A report was written but salvaged from partial findings.
    PartialReport = 4,
    /// A budget (tool calls, tokens, dollars, deadline, steps) ran out.
    BudgetExhausted = 5,
    /// The report cites no verified source (report.md says why).
    NoVerifiedSource = 6,
    /// The question names nothing to research; rephrase it.
    QuestionUnclear = 7,
    /// The sources read do not say what the question asks (report.md says so).
    NotAnswered = 8,
    /// `dra diff --exit-code` (and `ask --since --exit-code`): an answer changed.
    Changed = 9,
    /// Interrupted (Ctrl-C, SIGINT).
    Interrupted = 130,
    /// Hung up (SIGHUP): as Ctrl-C, 128 + 1.
    HungUp = 129,
    /// Terminated (SIGTERM: `timeout`, CI runners, container stops): as Ctrl-C, 128 + 15.
    Terminated = 143,
}

impl Exit {
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The exit code for a run's terminal status.
    pub fn for_status(state: StatusState, reason: StatusReason) -> Exit {
        match (state, reason) {
            (StatusState::Done, StatusReason::ReportDelivered | StatusReason::DirectAnswer) => {
                Exit::Ok
            }
            (StatusState::Done, StatusReason::AwaitingClarification) => Exit::AwaitingClarification,
            (StatusState::Done, StatusReason::NotAnswered) => Exit::NotAnswered,
            (StatusState::Done, _) => Exit::PartialReport,
            (_, StatusReason::Interrupted) => Exit::Interrupted,
            (_, StatusReason::BudgetExhausted) => Exit::BudgetExhausted,
            (_, StatusReason::NoVerifiedSource) => Exit::NoVerifiedSource,
            (_, StatusReason::QuestionUnclear) => Exit::QuestionUnclear,
            (_, StatusReason::ToolCallRequired) => Exit::Failure,
            _ => Exit::Failure,
        }
    }
}

/// The signals that end a run the way Ctrl-C does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Interrupt,
    Terminate,
    HangUp,
}

impl Signal {
    pub fn name(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::HangUp => "SIGHUP",
        }
    }

    /// 128 + the signal number, as a shell reports a process it ended.
    pub fn exit(self) -> Exit {
        match self {
            Signal::Interrupt => Exit::Interrupted,
            Signal::Terminate => Exit::Terminated,
            Signal::HangUp => Exit::HungUp,
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(e: Exit) -> Self {
        std::process::ExitCode::from(e.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes of README.md's exit-code table.
    fn documented() -> std::collections::BTreeSet<u8> {
        let readme = include_str!("../../README.md");
        let table = readme
            .split("## Exit codes")
            .nth(1)
            .expect("README.md has an Exit codes section");
        table
            .lines()
            .skip_while(|l| !l.starts_with('|'))
            .take_while(|l| l.starts_with('|'))
            .filter_map(|l| l.trim_matches('|').split('|').next()?.trim().parse().ok())
            .collect()
    }

    #[test]
    fn the_readme_table_names_every_code_and_only_those() {
        let all = [
            Exit::Ok,
            Exit::Failure,
            Exit::Usage,
            Exit::AwaitingClarification,
            Exit::PartialReport,
            Exit::BudgetExhausted,
            Exit::NoVerifiedSource,
            Exit::QuestionUnclear,
            Exit::NotAnswered,
            Exit::Changed,
            Exit::Interrupted,
            Exit::HungUp,
            Exit::Terminated,
        ];
        let codes: std::collections::BTreeSet<u8> = all.iter().map(|e| e.code()).collect();
        assert_eq!(documented(), codes);
        // Every ending a run can have exits with a documented code.
        use StatusReason::*;
        for reason in [
            ReportDelivered,
            AwaitingClarification,
            DirectAnswer,
            ReportSalvaged,
            NotAnswered,
            BudgetExhausted,
            StalledAfterNudges,
            EndedWithoutReport,
            Interrupted,
            ModelFailed,
            ToolCallRequired,
            InternalError,
            NoVerifiedSource,
            QuestionUnclear,
            SearchUnavailable,
            SourcesUnreachable,
            ReportQuality,
        ] {
            for state in [StatusState::Done, StatusState::Error] {
                let code = Exit::for_status(state, reason).code();
                assert!(
                    documented().contains(&code),
                    "{state:?} {reason:?} -> {code}"
                );
            }
        }
    }

    #[test]
    fn codes_are_stable() {
        assert_eq!(Exit::Ok.code(), 0);
        assert_eq!(Exit::Failure.code(), 1);
        assert_eq!(Exit::Usage.code(), 2);
        assert_eq!(Exit::AwaitingClarification.code(), 3);
        assert_eq!(Exit::PartialReport.code(), 4);
        assert_eq!(Exit::BudgetExhausted.code(), 5);
        assert_eq!(Exit::NoVerifiedSource.code(), 6);
        assert_eq!(Exit::QuestionUnclear.code(), 7);
        assert_eq!(Exit::NotAnswered.code(), 8);
        assert_eq!(Exit::Changed.code(), 9);
        assert_eq!(Exit::Interrupted.code(), 130);
        assert_eq!(Signal::HangUp.exit().code(), 129);
        assert_eq!(Signal::Terminate.exit().code(), 143);
        assert_eq!(Signal::Interrupt.exit().code(), 130);
    }

    #[test]
    fn statuses_map_to_codes() {
        use StatusReason::*;
        assert_eq!(
            Exit::for_status(StatusState::Done, ReportDelivered),
            Exit::Ok
        );
        assert_eq!(
            Exit::for_status(StatusState::Done, ReportSalvaged),
            Exit::PartialReport
        );
        assert_eq!(
            Exit::for_status(StatusState::Done, AwaitingClarification),
            Exit::AwaitingClarification
        );
        assert_eq!(
            Exit::for_status(StatusState::Error, Interrupted),
            Exit::Interrupted
        );
        assert_eq!(
            Exit::for_status(StatusState::Error, BudgetExhausted),
            Exit::BudgetExhausted
        );
        assert_eq!(
            Exit::for_status(StatusState::Error, NoVerifiedSource),
            Exit::NoVerifiedSource
        );
        assert_eq!(
            Exit::for_status(StatusState::Error, QuestionUnclear),
            Exit::QuestionUnclear
        );
        assert_eq!(
            Exit::for_status(StatusState::Error, StalledAfterNudges),
            Exit::Failure
        );
    }
}
