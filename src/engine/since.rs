//! `dra ask --since RUN`: once the report is delivered, the run is compared
//! with the earlier one ([`crate::changes`]): the report opens with what
//! changed, changes.md is written beside it and a `changes` event says how
//! much moved. An earlier run that cannot be read is a warning, never the
//! end of a run the user already paid for.

use super::EngineConfig;
use super::context::RunCtx;
use super::deliver::Delivered;
use crate::changes::{self, ChangeKind, RunRef};
use crate::protocol::{EventBody, MAIN_AGENT, StatusReason, WarningCode};
use crate::report;

pub(super) fn compare(ctx: &RunCtx, config: &EngineConfig, d: &mut Delivered) {
    let Some(earlier) = &config.since else {
        return;
    };
    // Only a finished research is compared: a run waiting for answers,
    // stopped or salvaged has not looked at everything (a resumed run is
    // compared when it finishes).
    if !matches!(
        d.reason,
        StatusReason::ReportDelivered | StatusReason::NotAnswered
    ) {
        return;
    }
    let run = RunRef {
        id: ctx.run_id.clone(),
        started: Some(config.header.created.clone()),
        question: Some(config.header.question.clone()),
    };
    let sources = d.report.sources.iter().map(|s| s.url.clone()).collect();
    let c = match changes::against(earlier, run, &d.merged, sources) {
        Ok(c) => c,
        Err(e) => {
            ctx.emitter.warning(
                MAIN_AGENT,
                WarningCode::Other,
                format!("--since: no comparison: {e}"),
            );
            return;
        }
    };
    // The section quotes values from pages (untrusted): it passes the
    // scrub and the link gate the rest of the report passed, so it links
    // only to the report's own sources.
    let allowed: Vec<&str> = d.report.sources.iter().map(|s| s.url.as_str()).collect();
    let section = report::hygiene::scrub(&changes::report_section(&c)).markdown;
    let section = report::links::gate(&section, &allowed).markdown;
    d.report.markdown = changes::open_report_with(&d.report.markdown, &section);
    let path = config.run_dir.path().join("changes.md");
    let written = match config.run_dir.write_text(&path, &changes::markdown(&c)) {
        Ok(()) => Some(path.display().to_string()),
        Err(e) => {
            ctx.emitter.warning(
                MAIN_AGENT,
                WarningCode::WriteFailed,
                format!("could not write changes.md: {e}"),
            );
            None
        }
    };
    ctx.emitter.emit(
        MAIN_AGENT,
        EventBody::Changes {
            since_run: c.from.id.clone(),
            changed: c.count(ChangeKind::Changed),
            new: c.count(ChangeKind::New),
            retracted: c.count(ChangeKind::Retracted),
            unchanged: c.count(ChangeKind::Unchanged),
            changes_path: written,
        },
    );
}
