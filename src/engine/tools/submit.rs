//! The two deliverables and their gates. `submit_findings`: every quote must
//! appear in the stored text of an accepted page read in this run.
//! `submit_report`: scrubbed and citation-linted. Fixable defects bounce
//! once (`revising`); what still fails is dropped and named.

use std::collections::{BTreeMap, BTreeSet};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::document::normalize_url;
use crate::engine::context::RunCtx;
use crate::engine::deliver::{claim_library, echo_library};
use crate::engine::tool::names::{FETCH_URL, SUBMIT_FINDINGS, SUBMIT_REPORT};
use crate::engine::tool::{AgentCx, Deliverable, ToolOutput, TypedTool};
use crate::evidence::{Claim, EvidenceItem, Scores, SourceRef, injection, quotes};
use crate::evidence::{Finding, Findings, Page};
use crate::protocol::{EventBody, FindingRow, StatusReason, StatusState, Verdict};
use crate::report::claim_check;
use crate::report::echo;
use crate::report::{citations, hygiene};

/// What evidence.json keeps of a finding that carried an instruction.
const WITHHELD: &str = "[withheld: instruction aimed at AI agents]";

pub struct SubmitFindings;
pub struct SubmitReport;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawFinding {
    claim: String,
    quote: String,
    url: String,
    #[serde(default)]
    field: Option<String>,
    #[serde(default)]
    value: Option<String>,
    /// YYYY-MM-DD the fact holds as of
    #[serde(default)]
    as_of: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindingsArgs {
    summary: String,
    findings: Vec<RawFinding>,
    #[serde(default)]
    gaps: Vec<String>,
    /// The direct answer to your sub-question in a few words (a name, a date, a number with its unit), as the quotes state it; "" when the pages you read do not answer it. Give each finding that states it the same value.
    #[serde(default)]
    answer: Option<String>,
    /// false when the pages you read do not answer your sub-question (say what they lack in gaps); true when your findings answer it
    #[serde(default)]
    answered: Option<bool>,
}

#[async_trait]
impl TypedTool for SubmitFindings {
    const NAME: &'static str = SUBMIT_FINDINGS;
    const ENDS_AGENT: bool = true;
    type Args = FindingsArgs;

    fn description(&self) -> String {
        format!(
            "Hand your findings back (ends your task). Each finding: a claim, a quote copied VERBATIM from the page text, and the url of a page you read with {FETCH_URL}. Quotes not found in the page are rejected. List what you could not establish in gaps."
        )
    }

    async fn run(&self, cx: &AgentCx, args: FindingsArgs) -> ToolOutput {
        let instructions = screen_instructions(&args.findings, cx);
        let Verified { problems, checked } = verify_quotes(&args.findings, &instructions, &cx.run);
        if let Some(bounced) = bounce_once(cx, &problems) {
            return bounced;
        }
        let gaps = record_dropped(cx, &args, &instructions, &problems);
        let findings = record_evidence(cx, &args.findings, checked);
        accept(cx, &args, findings, gaps)
    }
}

/// The findings that carry instructions, by index, each with why it is
/// dropped.
///
/// Instructions are never evidence: a finding that reads as one is
/// dropped (no bounce can fix it), and when its quote is verbatim on
/// the page, the page is quarantined and its other findings go too.
fn screen_instructions(findings: &[RawFinding], cx: &AgentCx) -> BTreeMap<usize, String> {
    let run = &cx.run;
    let mut instructions: BTreeMap<usize, String> = BTreeMap::new();
    let mut hostile: BTreeSet<String> = BTreeSet::new();
    for (i, f) in findings.iter().enumerate() {
        let in_quote = injection::scan_text(&quotes::unescape(&f.quote));
        let in_claim: Vec<&str> = [Some(&f.claim), f.value.as_ref(), f.field.as_ref()]
            .into_iter()
            .flatten()
            .flat_map(|t| injection::scan_text(t))
            .collect();
        if !in_quote.is_empty() {
            if let Some((page, _)) = run.pages.get(&f.url)
                && page.verdict == Verdict::Accepted
                && quotes::quote_in_text(&f.quote, &page.text)
            {
                run.quarantine_late(&cx.agent, &page.url, "finding", &in_quote);
                hostile.insert(normalize_url(&page.url));
            }
            instructions.insert(
                i,
                format!(
                    "its quote reads as an instruction aimed at AI agents ({}); instructions are never evidence",
                    in_quote.join(", ").replace('_', " ")
                ),
            );
        } else if !in_claim.is_empty() {
            instructions.insert(
                i,
                format!(
                    "its claim reads as an instruction aimed at AI agents ({}); instructions are never evidence",
                    in_claim.join(", ").replace('_', " ")
                ),
            );
        }
    }
    for (i, f) in findings.iter().enumerate() {
        let quarantined = hostile.contains(&normalize_url(&f.url))
            || run
                .pages
                .get(&f.url)
                .is_some_and(|(p, _)| p.verdict == Verdict::Quarantined);
        if !instructions.contains_key(&i) && quarantined {
            instructions.insert(
                i,
                "its page was quarantined: it carries instructions aimed at AI agents".into(),
            );
        }
    }
    instructions
}

/// What the quote gate made of the findings not already dropped as
/// instructions.
struct Verified {
    /// (1-based finding number, what is wrong with it).
    problems: Vec<(usize, String)>,
    /// (index, the accepted page its quote is on, that page's number).
    checked: Vec<(usize, Page, usize)>,
}

/// Checks each finding that is not an instruction: a claim, a quote, and
/// the quote verbatim on an accepted page read in this run.
fn verify_quotes(
    findings: &[RawFinding],
    instructions: &BTreeMap<usize, String>,
    run: &RunCtx,
) -> Verified {
    let mut problems = Vec::new();
    let mut checked = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        let n = i + 1;
        let problem = if instructions.contains_key(&i) {
            None
        } else if f.claim.trim().is_empty() {
            Some("claim is empty".to_string())
        } else if f.quote.trim().is_empty() {
            Some("quote is empty".to_string())
        } else {
            match run.pages.get(&f.url) {
                None => Some(format!(
                    "{} was never read in this run: fetch it first or drop the finding",
                    f.url
                )),
                Some((page, _)) if page.verdict != Verdict::Accepted => Some(format!(
                    "{} is not usable evidence ({})",
                    f.url,
                    page.reason.clone().unwrap_or_default()
                )),
                Some(_) if quotes::is_too_short(&f.quote) => Some(format!(
                    "the quote {:?} is too short to check (under {} characters): quote the whole sentence, table row or line that states it",
                    f.quote.trim(),
                    quotes::MIN_QUOTE_CHARS
                )),
                Some((page, _)) if !quotes::quote_in_text(&f.quote, &page.text) => Some(format!(
                    "the quote {:?} does not appear in {}: copy the sentence verbatim from the page text",
                    truncate(&f.quote, 120),
                    f.url
                )),
                Some((page, number)) => {
                    checked.push((i, page, number.unwrap_or(0)));
                    None
                }
            }
        };
        if let Some(p) = problem {
            problems.push((n, p));
        }
    }
    Verified { problems, checked }
}

/// The first submission with problems goes back to the agent (`revising`)
/// listing them; a later one goes through, its failing findings dropped.
fn bounce_once(cx: &AgentCx, problems: &[(usize, String)]) -> Option<ToolOutput> {
    let first_try = {
        let mut st = cx.state();
        let first = st.findings_bounces == 0;
        if !problems.is_empty() && first {
            st.findings_bounces += 1;
        }
        first
    };
    if problems.is_empty() || !first_try {
        return None;
    }
    cx.run.emitter.status(
        &cx.agent,
        StatusState::Revising,
        Some(StatusReason::SubagentFindings),
        Some(format!(
            "{} finding(s) failed the findings gate",
            problems.len()
        )),
    );
    let listing: Vec<String> = problems
        .iter()
        .map(|(n, p)| format!("finding {n}: {p}"))
        .collect();
    Some(ToolOutput {
        ok: false,
        content: format!(
            "Findings not accepted. Fix these problems and call {SUBMIT_FINDINGS} again (findings that still fail will be dropped):\n- {}",
            listing.join("\n- ")
        ),
        summary: format!("bounced: {} problem(s)", problems.len()),
        error_class: Some(crate::protocol::ErrorClass::Permanent),
        deliverable: None,
        repeated: false,
    })
}

/// The agent's gaps, then one per dropped finding, each dropped finding
/// recorded in evidence.json as rejected.
fn record_dropped(
    cx: &AgentCx,
    args: &FindingsArgs,
    instructions: &BTreeMap<usize, String>,
    problems: &[(usize, String)],
) -> Vec<String> {
    let mut gaps: Vec<String> = args
        .gaps
        .iter()
        .map(|g| g.trim().to_string())
        .filter(|g| !g.is_empty())
        .collect();
    // Dropped instructions are named without their words, which must
    // reach neither the report nor evidence.json.
    for (i, why) in instructions {
        let f = &args.findings[*i];
        gaps.push(format!("dropped finding {} (from {}): {why}", i + 1, f.url));
        let claim = Claim {
            field: f.field.clone().unwrap_or_else(|| cx.aspect.clone()),
            value: WITHHELD.into(),
            snippet: WITHHELD.into(),
            event_date: None,
        };
        record_rejected(cx, &f.url, claim, format!("findings_gate: {why}"));
    }
    for (n, p) in problems {
        let claim = &args.findings[n - 1].claim;
        gaps.push(format!(
            "dropped an unverifiable finding ({}): {p}",
            truncate(claim, 80)
        ));
        let f = &args.findings[n - 1];
        let claim = Claim {
            field: f.field.clone().unwrap_or_else(|| cx.aspect.clone()),
            value: f.value.clone().unwrap_or_else(|| claim.clone()),
            snippet: f.quote.clone(),
            event_date: f.as_of.clone(),
        };
        record_rejected(cx, &f.url, claim, format!("findings_gate: {p}"));
    }
    gaps
}

/// Records each verified finding in evidence.json as accepted and returns
/// it as a finding of this unit, numbered by its page.
fn record_evidence(
    cx: &AgentCx,
    raw: &[RawFinding],
    checked: Vec<(usize, Page, usize)>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (i, page, number) in checked {
        let f = &raw[i];
        let as_of = f.as_of.clone().or_else(|| page.as_of().map(str::to_string));
        cx.run.record_evidence(EvidenceItem {
            id: String::new(),
            origin: cx.agent.clone(),
            claim: Claim {
                field: f.field.clone().unwrap_or_else(|| cx.aspect.clone()),
                value: f.value.clone().unwrap_or_else(|| f.claim.clone()),
                snippet: f.quote.clone(),
                event_date: f.as_of.clone(),
            },
            source: SourceRef::of(&page),
            scores: Scores::from_identity(page.identity.score),
            accepted: true,
            flags: vec![],
        });
        findings.push(Finding {
            claim: f.claim.trim().to_string(),
            quote: f.quote.trim().to_string(),
            url: page.url.clone(),
            source: number,
            field: f.field.clone(),
            value: f.value.clone(),
            as_of,
            title: page.title.clone(),
            source_type: Some(page.source_type),
        });
    }
    findings
}

/// The unit's findings as its deliverable, announced in the event stream.
fn accept(
    cx: &AgentCx,
    args: &FindingsArgs,
    findings: Vec<Finding>,
    gaps: Vec<String>,
) -> ToolOutput {
    let result = Findings {
        unit: cx.agent.clone(),
        aspect: cx.aspect.clone(),
        summary: args.summary.trim().to_string(),
        findings,
        gaps,
        answer: args
            .answer
            .as_deref()
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(str::to_string),
        answered: args
            .answered
            .or_else(|| args.answer.as_deref().map(|a| !a.trim().is_empty())),
    };
    cx.run.emitter.emit(
        &cx.agent,
        EventBody::SubagentFindings {
            unit: cx.agent.clone(),
            summary: result.summary.clone(),
            findings: result
                .findings
                .iter()
                .map(|f| FindingRow {
                    finding: f.claim.clone(),
                    evidence: f.quote.clone(),
                    source: format!("[{}] {}", f.source, f.url),
                })
                .collect(),
            gaps: result.gaps.clone(),
        },
    );
    let n = result.findings.len();
    ToolOutput {
        ok: true,
        content: format!("Findings accepted ({n})."),
        summary: format!("{} accepted", crate::count(n, "finding")),
        error_class: None,
        deliverable: Some(Deliverable::Findings(result)),
        repeated: false,
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(n).collect::<String>())
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportArgs {
    markdown: String,
}

#[async_trait]
impl TypedTool for SubmitReport {
    const NAME: &'static str = SUBMIT_REPORT;
    const ENDS_AGENT: bool = true;
    type Args = ReportArgs;

    fn description(&self) -> String {
        "Submit the final report in Markdown (ends the run). Cite sources only as [n] with the numbers from the findings; do not write a Sources list (it is added for you). Sections: answer, findings with confidence and as-of dates, history, conflicts, gaps.".into()
    }

    async fn run(&self, cx: &AgentCx, args: ReportArgs) -> ToolOutput {
        let run = &cx.run;
        let scrubbed = hygiene::scrub(&args.markdown);
        let (body, _, _) = citations::split_sources(&scrubbed.markdown);
        let known: BTreeSet<usize> = run.pages.numbers().into_iter().collect();
        let mut problems: Vec<String> = Vec::new();
        if body.trim().len() < 40 {
            problems.push("the report is empty or too short".into());
        }
        let cited = citations::citations(body);
        for (line, n) in &cited {
            if !known.contains(n) {
                problems.push(format!(
                    "line {line}: [{n}] is not a source number from this run"
                ));
            }
        }
        if cited.is_empty() && !known.is_empty() {
            problems.push("no citations: support each claim with [n] from the findings".into());
        }
        if !scrubbed.removed.is_empty() {
            problems.push(format!(
                "removed from the report: {}",
                scrubbed.removed.join(", ")
            ));
        }
        // Every cited sentence, against the stored text of the sources it cites.
        let library = claim_library(run, body);
        let check = claim_check::check(body, &library);
        for c in check.unsupported() {
            problems.push(format!(
                "line {}: the sentence \"{}\" is not supported by its source ({}): {}. Cite the source that states it, state only what the source says, or drop the sentence",
                c.line,
                truncate(&c.text, 160),
                c.cites
                    .iter()
                    .map(|n| {
                        let url = library.url(*n).unwrap_or("unknown");
                        format!("[{n}] {url}")
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                c.problems.join("; ")
            ));
        }
        // Report text never echoes what pages told an agent to write.
        let echo_library = echo_library(run);
        let echoes = echo::find(body, &echo_library);
        problems.extend(echo::problems(body, &echoes));
        let first_try = {
            let mut st = cx.state();
            let first = st.report_bounces == 0;
            if !problems.is_empty() && first {
                st.report_bounces += 1;
            }
            first
        };
        if !problems.is_empty() && first_try {
            run.emitter.status(
                &cx.agent,
                StatusState::Revising,
                Some(StatusReason::ReportQuality),
                Some(format!("{} report problem(s)", problems.len())),
            );
            return ToolOutput {
                ok: false,
                content: format!(
                    "Report not accepted yet. Fix these problems and call {SUBMIT_REPORT} again (unsupported sentences that remain will be removed and listed under Gaps):\n- {}",
                    problems.join("\n- ")
                ),
                summary: format!("bounced: {} problem(s)", problems.len()),
                error_class: Some(crate::protocol::ErrorClass::Permanent),
                deliverable: None,
                repeated: false,
            };
        }
        // Second time round, what still fails is removed and named under
        // Gaps when the report is delivered (`engine::deliver`).
        ToolOutput {
            ok: true,
            content: "Report accepted.".into(),
            summary: format!(
                "report accepted ({} citations, {}/{} cited sentences supported)",
                cited.len(),
                check.supported(),
                check.checked()
            ),
            error_class: None,
            deliverable: Some(Deliverable::Report(args.markdown)),
            repeated: false,
        }
    }
}

/// Records a finding the gate refused in evidence.json (not accepted),
/// with the page it named if that page was read.
fn record_rejected(cx: &AgentCx, url: &str, claim: Claim, flag: String) {
    let run = &cx.run;
    let page = run.pages.get(url).map(|(p, _)| p);
    run.record_evidence(EvidenceItem {
        id: String::new(),
        origin: cx.agent.clone(),
        claim,
        source: page
            .as_ref()
            .map(SourceRef::of)
            .unwrap_or_else(|| SourceRef {
                url: url.to_string(),
                domain: crate::document::host_of(url),
                source_type: crate::document::SourceType::Other,
                published: None,
                updated: None,
                retrieved: run.today.clone(),
            }),
        scores: Scores::from_identity(page.as_ref().map(|p| p.identity.score).unwrap_or(0.0)),
        accepted: false,
        flags: vec![flag],
    });
}
