//! A run's ending made a report: the lead's report (or one salvaged from
//! its findings, or the note that says why there is none) scrubbed, its
//! echoes and unsupported sentences removed, the gaps a stopped run left
//! named, judged against the question's sub-questions, and finalized with
//! its sources and footer. [`deliver`] is the stage; the orchestrator
//! writes and announces what it returns.

use std::collections::BTreeSet;

use super::agent_loop::AgentEnd;
use super::context::RunCtx;
use super::tool::Deliverable;
use super::tool::names::SUBMIT_REPORT;
use super::{EngineConfig, answered};
use crate::document::normalize_url;
use crate::evidence::dedup::Copies;
use crate::evidence::merge::MergedField;
use crate::evidence::{Findings, Page};
use crate::protocol::{
    AskRequest, ClaimSupport, MAIN_AGENT, RunMode, StatusReason, StatusState, Verdict, WarningCode,
};
use crate::report;
use crate::report::claim_check::{Library, SourceInput};
use crate::report::echo::{EchoLibrary, EchoPage};

/// What a run delivers: its outcome, the final report, the claim check's
/// tally, and what the run files record.
pub(super) struct Delivered {
    pub state: StatusState,
    pub reason: StatusReason,
    pub detail: Option<String>,
    pub report: report::FinalReport,
    pub claims: ClaimSupport,
    /// The merged evidence (evidence.json).
    pub merged: Vec<MergedField>,
    pub copies: Copies,
    /// Every page read, and the numbered ones.
    pub pages: Vec<Page>,
    pub numbered: Vec<(usize, Page)>,
}

/// The report a run delivers, from how its lead agent ended (`None`: the
/// question was not researched, `unclear` says why).
pub(super) fn deliver(
    ctx: &RunCtx,
    config: &EngineConfig,
    request: &AskRequest,
    unclear: Option<crate::question::Unresearchable>,
    end: Option<AgentEnd>,
) -> Delivered {
    let findings = ctx.all_findings();
    // The merged evidence: written to evidence.json, and the basis of any salvaged report.
    let (merged, copies) = ctx.merge_evidence();
    let number_of = |url: &str| ctx.pages.get(url).and_then(|(_, n)| n);
    let merged_view = report::evidence_view::view(&merged, &number_of);
    let salvage = || {
        (!findings.is_empty()).then(|| {
            report::draft_from_merged(
                &request.question,
                ctx.anchors.name.as_deref(),
                &findings,
                &merged_view,
            )
        })
    };
    let question = request.question.trim();
    let (state, reason, detail, markdown, stopped) =
        ending(ctx, config, question, unclear, end, &salvage);
    let (state, reason, detail, markdown) = match outage(ctx, question, reason) {
        Some(o) => o,
        None => (state, reason, detail, markdown),
    };
    let salvaged = stopped && markdown.is_some();
    let markdown = markdown.unwrap_or_else(|| {
        format!(
            "# Research report\n\n**Question:** {question}\n\nNo report could be written: the run ended ({}) before any verified finding was made.\n",
            reason.in_words()
        )
    });
    let (markdown, claims) = checked_report(ctx, &markdown);
    // Stopped before the end: the plan's unreached aspects become gaps.
    let markdown = report::gaps::amend(&markdown, &gap_notes(ctx, &findings, stopped, reason));

    let pages = ctx.pages.pages();
    let numbered = ctx.pages.numbered_pages();
    let footer = footer(ctx, salvaged);
    let skipped = ctx.skipped();
    let assembly = Assembly {
        pages: &pages,
        numbered: &numbered,
        skipped: &skipped,
        footer: &footer,
    };
    let (outcome, judged) =
        judge_answers(ctx, question, &findings, &assembly, (state, reason, detail));
    let (report, (state, reason, detail)) = match judged {
        Some(report) => (report, outcome),
        None => require_verified_source(&markdown, &claims, &assembly, outcome),
    };
    Delivered {
        state,
        reason,
        detail,
        report,
        claims,
        merged,
        copies,
        pages,
        numbered,
    }
}

/// The ending of a run that read nothing because its sources could not be
/// reached: an outage, whatever the lead made of it (a question for the
/// user, a report of nothing). Interrupted and budget endings stay.
fn outage(
    ctx: &RunCtx,
    question: &str,
    reason: StatusReason,
) -> Option<(StatusState, StatusReason, Option<String>, Option<String>)> {
    if matches!(
        reason,
        StatusReason::Interrupted | StatusReason::BudgetExhausted | StatusReason::QuestionUnclear
    ) || !ctx.pages.pages().is_empty()
    {
        return None;
    }
    let o = ctx.reach.outage(ctx.search.name())?;
    let question: String = question.chars().filter(|c| !c.is_control()).collect();
    let md = format!(
        "# Sources unreachable\n\n**Question:** {question}\n\nNothing was researched: {}. This is an outage, not a problem with the question: when the backend answers again, `dra resume {}` tries the failed calls again.\n",
        o.detail, ctx.run_id
    );
    Some((StatusState::Error, o.reason, Some(o.detail), Some(md)))
}

/// What the report's Gaps cannot know: the plan's aspects a stopped run
/// never reached, and the documents a corpus cap cut.
fn gap_notes(
    ctx: &RunCtx,
    findings: &[Findings],
    stopped: bool,
    reason: StatusReason,
) -> report::gaps::GapNotes {
    let researched: Vec<String> = findings.iter().map(|f| f.aspect.clone()).collect();
    report::gaps::GapNotes {
        unresearched: if stopped {
            report::gaps::unresearched(&ctx.plan(), &researched)
        } else {
            Vec::new()
        },
        ended: reason.in_words(),
        read: ctx.read_per_aspect(),
        truncated: ctx
            .truncated()
            .into_iter()
            .map(|(url, kept)| report::gaps::Cut { url, kept })
            .collect(),
    }
}

fn no_verified_source_why(accepted: usize, claims: &ClaimSupport) -> String {
    if accepted == 0 {
        "no page read was accepted as a source, so nothing in this report is backed by one".into()
    } else if claims.checked > 0 {
        format!(
            "{accepted} page(s) were accepted, but no cited sentence of the report survived the claim check ({} checked, {} removed as unsupported)",
            claims.checked, claims.removed
        )
    } else {
        format!("{accepted} page(s) were accepted, but the report cites none of them")
    }
}

/// The report with a note after its title block (before the first section).
fn with_note(markdown: &str, note: &str) -> String {
    match markdown.find("\n## ") {
        Some(i) => format!(
            "{}\n\n> {note}\n{}",
            markdown[..i].trim_end(),
            &markdown[i..]
        ),
        None => format!("{}\n\n> {note}\n", markdown.trim_end()),
    }
}

fn looks_like_report(text: &str, sources: usize) -> bool {
    let cited = report::citations::citations(text)
        .iter()
        .filter(|(_, n)| *n >= 1 && *n <= sources)
        .count();
    text.len() >= 300 && cited >= 2
}

/// A run's state, reason and detail.
type Outcome = (StatusState, StatusReason, Option<String>);

/// How the lead agent ended, as an outcome, the report it leaves (if any),
/// and whether the run stopped before its end (its report then salvaged).
fn ending(
    ctx: &RunCtx,
    config: &EngineConfig,
    question: &str,
    unclear: Option<crate::question::Unresearchable>,
    end: Option<AgentEnd>,
    salvage: &dyn Fn() -> Option<String>,
) -> (
    StatusState,
    StatusReason,
    Option<String>,
    Option<String>,
    bool,
) {
    match end {
        None => {
            let why = unclear.map(|u| u.why).unwrap_or_default();
            let shown: String = question.chars().filter(|c| !c.is_control()).collect();
            let md = format!(
                "# Question unclear\n\n**Question:** {shown}\n\nNothing was researched: {why}.\n"
            );
            (
                StatusState::Error,
                StatusReason::QuestionUnclear,
                Some(why),
                Some(md),
                false,
            )
        }
        Some(end) => match end {
            AgentEnd::Delivered(Deliverable::Report(md)) => (
                StatusState::Done,
                StatusReason::ReportDelivered,
                None,
                Some(md),
                false,
            ),
            AgentEnd::Delivered(Deliverable::Clarification(questions)) => {
                let list: String = questions
                    .iter()
                    .enumerate()
                    .map(|(i, q)| format!("{}. {q}\n", i + 1))
                    .collect();
                let md = format!(
                    "# Clarification needed\n\n**Question:** {question}\n\nBefore researching, dra needs answers to:\n\n{list}"
                );
                (
                    StatusState::Done,
                    StatusReason::AwaitingClarification,
                    None,
                    Some(md),
                    false,
                )
            }
            AgentEnd::DirectAnswer(_) if config.settings.require_tool_call => (
                StatusState::Error,
                StatusReason::ToolCallRequired,
                Some(
                    "the model answered without calling any tool, and --require-tool-call is set"
                        .into(),
                ),
                None,
                false,
            ),
            AgentEnd::DirectAnswer(text) => {
                let md = format!("# Answer\n\n**Question:** {question}\n\n{text}\n");
                (
                    StatusState::Done,
                    StatusReason::DirectAnswer,
                    None,
                    Some(md),
                    false,
                )
            }
            AgentEnd::Delivered(Deliverable::Findings(_)) => (
                StatusState::Error,
                StatusReason::EndedWithoutReport,
                Some("the orchestrator returned findings, not a report".into()),
                salvage(),
                true,
            ),
            AgentEnd::Stalled { text } if looks_like_report(&text, ctx.pages.source_count()) => (
                StatusState::Done,
                StatusReason::ReportSalvaged,
                Some(format!(
                    "the model wrote its report as plain text instead of calling {SUBMIT_REPORT}; it was salvaged"
                )),
                Some(text),
                true,
            ),
            AgentEnd::Stalled { .. } => (
                StatusState::Error,
                StatusReason::StalledAfterNudges,
                Some(format!(
                    "the model stopped without {SUBMIT_REPORT} after nudges"
                )),
                salvage(),
                true,
            ),
            AgentEnd::Halted(_) | AgentEnd::Cancelled => {
                let reason = ctx.cancel.reason().unwrap_or(StatusReason::Interrupted);
                (StatusState::Error, reason, None, salvage(), true)
            }
            AgentEnd::Failed(e) => (
                StatusState::Error,
                StatusReason::ModelFailed,
                Some(e),
                salvage(),
                true,
            ),
        },
    }
}

/// The report as delivered: scrubbed, echoes of what pages told agents to
/// write removed, and every cited sentence checked against its sources,
/// the unsupported ones removed (they are named under Gaps); each removal
/// is warned of. The report gate bounced the lead's first draft over the
/// same checks; this pass is the same for every report, delivered,
/// salvaged or written as plain text.
fn checked_report(ctx: &RunCtx, markdown: &str) -> (String, ClaimSupport) {
    let scrubbed = report::hygiene::scrub(markdown).markdown;
    let (body, _, _) = report::citations::split_sources(&scrubbed);
    let echoes = report::echo::find(body, &echo_library(ctx));
    let base = if echoes.is_empty() {
        scrubbed
    } else {
        let cleaned = report::echo::remove(&scrubbed, &echoes);
        ctx.emitter.warning(
            MAIN_AGENT,
            WarningCode::EchoedInstructions,
            format!(
                "{} sentence(s) echoing instructions from pages were removed from the report",
                cleaned.removed.len()
            ),
        );
        cleaned.markdown
    };
    let (body, _, _) = report::citations::split_sources(&base);
    let library = claim_library(ctx, body);
    let check = report::claim_check::check(body, &library);
    let enforced = report::claim_check::remove_unsupported(&base, &check, &library);
    let removed = enforced.removed.len();
    if removed > 0 {
        ctx.emitter.warning(
            MAIN_AGENT,
            WarningCode::UnsupportedClaims,
            format!("{removed} sentence(s) not supported by their sources were removed from the report and listed under Gaps"),
        );
    }
    let claims = ClaimSupport::new(check.checked(), check.supported(), removed);
    (enforced.markdown, claims)
}

/// The sources a report cites, as the claim check needs them: each accepted
/// page's stored text, title, URL and dates, and the accepted findings
/// drawn from it (a sentence may paraphrase one).
pub(crate) fn claim_library(run: &RunCtx, markdown: &str) -> Library {
    let cited: BTreeSet<usize> = report::citations::citations(markdown)
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    let evidence = run.pages.evidence();
    let mut library = Library::new();
    for n in cited {
        // A page quarantined after it was numbered is no source.
        let Some(page) = run
            .pages
            .by_number(n)
            .filter(|p| p.verdict == Verdict::Accepted)
        else {
            continue;
        };
        let findings: Vec<String> = evidence
            .iter()
            .filter(|e| e.accepted && e.source.url == page.url)
            .map(|e| e.claim.value.clone())
            .collect();
        let dates: Vec<&str> = [page.published.as_deref(), page.updated.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        library.add(
            n,
            &SourceInput {
                text: &page.text,
                title: &page.title,
                url: &page.url,
                dates,
                findings,
            },
        );
    }
    library
}

/// The run's pages as the echo check needs them: accepted texts, and the
/// quarantined pages with the number they had, if any.
pub(crate) fn echo_library(run: &RunCtx) -> EchoLibrary {
    let pages = run.pages.pages();
    let numbers: std::collections::HashMap<String, usize> = run
        .pages
        .numbered_pages()
        .into_iter()
        .map(|(n, p)| (normalize_url(&p.url), n))
        .collect();
    let accepted: Vec<&str> = pages
        .iter()
        .filter(|p| p.verdict == Verdict::Accepted)
        .map(|p| p.text.as_str())
        .collect();
    let quarantined: Vec<EchoPage<'_>> = pages
        .iter()
        .filter(|p| p.verdict == Verdict::Quarantined)
        .map(|p| EchoPage {
            number: numbers.get(&normalize_url(&p.url)).copied(),
            url: &p.url,
            text: &p.text,
        })
        .collect();
    EchoLibrary::new(&accepted, &quarantined)
}

/// The report's closing line: who researched it, and whether it was salvaged.
fn footer(ctx: &RunCtx, salvaged: bool) -> String {
    let mut footer = match ctx.mode {
        RunMode::Offline => format!(
            "Offline run: dra's deterministic extractive model (no language model) researched {}. Every quote is a verbatim sentence of its source.",
            ctx.backend_label
        ),
        RunMode::Online => format!(
            "Researched with the {} tier over {}.",
            ctx.settings.tier.name, ctx.backend_label
        ),
    };
    if salvaged {
        footer
            .push_str(" This report was salvaged from the findings gathered before the run ended.");
    }
    footer
}

/// What every version of the report is finalized with.
struct Assembly<'a> {
    pages: &'a [Page],
    numbered: &'a [(usize, Page)],
    skipped: &'a [(String, String)],
    footer: &'a str,
}

impl Assembly<'_> {
    fn finalize(&self, markdown: &str) -> report::FinalReport {
        report::finalize(
            markdown,
            self.pages,
            self.numbered,
            self.skipped,
            self.footer,
        )
    }
}

/// What the answers make of the ending: sources not about the subject
/// (the report replaced by the one returned), nothing answered, or the
/// tally of sub-questions answered.
fn judge_answers(
    ctx: &RunCtx,
    question: &str,
    findings: &[Findings],
    assembly: &Assembly,
    (state, reason, detail): Outcome,
) -> (Outcome, Option<report::FinalReport>) {
    match answered::judge(
        question,
        &ctx.anchors,
        assembly.pages,
        findings,
        (state, reason, detail),
    ) {
        answered::Judged::SubjectAbsent { markdown, detail } => {
            let replaced = report::finalize(
                &markdown,
                assembly.pages,
                &[],
                assembly.skipped,
                assembly.footer,
            );
            let outcome = (
                StatusState::Error,
                StatusReason::NoVerifiedSource,
                Some(detail),
            );
            (outcome, Some(replaced))
        }
        answered::Judged::NotAnswered { detail } => {
            ((state, StatusReason::NotAnswered, Some(detail)), None)
        }
        answered::Judged::Kept { detail } => ((state, reason, detail), None),
    }
}

/// The finalized report; one that cites nothing verified is not a
/// delivered report: it is noted as such and the run ends in error.
fn require_verified_source(
    markdown: &str,
    claims: &ClaimSupport,
    assembly: &Assembly,
    (state, reason, detail): Outcome,
) -> (report::FinalReport, Outcome) {
    let fin = assembly.finalize(markdown);
    let delivered = state == StatusState::Done
        && matches!(
            reason,
            StatusReason::ReportDelivered | StatusReason::ReportSalvaged
        );
    if !delivered || !fin.sources.is_empty() {
        return (fin, (state, reason, detail));
    }
    let why = no_verified_source_why(assembly.numbered.len(), claims);
    let mut first = why.chars();
    let sentence: String = first
        .next()
        .map(|c| c.to_uppercase().chain(first).collect())
        .unwrap_or_default();
    let noted = with_note(
        markdown,
        &format!(
            "**No verified source.** {sentence}. This report is not evidence: rephrase the question or point dra at sources that cover it."
        ),
    );
    (
        assembly.finalize(&noted),
        (
            StatusState::Error,
            StatusReason::NoVerifiedSource,
            Some(why),
        ),
    )
}
