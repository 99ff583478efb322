//! `dra eval GOLD.json`: runs the cases of a gold set and scores them with
//! these metrics: field accuracy, history recall, citation
//! support, conflict recall, forbidden content, over-confident errors, cost.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use serde::{Deserialize, Serialize};

use super::ask::{print_notes, runtime, setup_error};
use super::lint_report::{SourceRef, check_report};
use super::{CliError, CliResult, Exit, GlobalArgs, print_stdout};
use crate::app::{self, RunInputs, Source};
use crate::config::Settings;
use crate::engine::RunSummary;
use crate::evidence::{quotes, values};
use crate::protocol::EntityAnchors;
use crate::report::claim_check::facts;
use crate::report::{SourceEntry, citations};
use crate::store::page_text_file;

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The gold set (JSON).
    pub gold: PathBuf,
    /// Run only the case with this id.
    #[arg(long)]
    pub case: Option<String>,
}

/// A gold set: cases checked by hand, with thresholds to meet.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldSet {
    pub name: String,
    #[serde(default)]
    pub thresholds: Thresholds,
    pub cases: Vec<GoldCase>,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Thresholds {
    pub field_accuracy: Option<f64>,
    pub history_recall: Option<f64>,
    pub citation_support: Option<f64>,
    /// Share of cited sentences their sources support (the claim check).
    pub claim_support: Option<f64>,
    pub conflict_recall: Option<f64>,
    pub max_forbidden: Option<usize>,
    pub max_over_confident_errors: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoldCase {
    pub id: String,
    pub question: String,
    /// `embedded`, `live` (the configured web search backend), or a corpus
    /// path relative to the gold file.
    #[serde(default = "embedded")]
    pub corpus: String,
    #[serde(default)]
    pub entity: EntityAnchors,
    /// Expected current value per aspect (as named in the question).
    #[serde(default)]
    pub expected: BTreeMap<String, String>,
    /// Values that were true earlier and must be reported as history.
    #[serde(default)]
    pub history: BTreeMap<String, Vec<String>>,
    /// Aspects whose sources disagree and must be shown as conflicts.
    #[serde(default)]
    pub conflicts: Vec<String>,
    /// Strings that must never appear in the report.
    #[serde(default)]
    pub forbidden: Vec<String>,
}

fn embedded() -> String {
    "embedded".into()
}

#[derive(Debug, Default, Serialize)]
pub struct CaseScore {
    pub id: String,
    pub status: String,
    pub report: Option<PathBuf>,
    pub field_accuracy: f64,
    pub fields: Vec<FieldResult>,
    pub history_recall: f64,
    pub citation_support: f64,
    pub citations_checked: usize,
    /// Share of cited sentences supported by their sources (the claim check).
    pub claim_support: f64,
    pub claims_checked: usize,
    /// The sentences that failed it, with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unsupported_claims: Vec<String>,
    pub conflict_recall: f64,
    pub forbidden_found: Vec<String>,
    pub over_confident_errors: usize,
    pub tool_calls: u64,
    pub tokens: u64,
    pub cost_usd: f64,
    pub seconds: f64,
}

#[derive(Debug, Serialize)]
pub struct FieldResult {
    pub aspect: String,
    pub expected: String,
    pub reported: Option<String>,
    pub correct: bool,
}

fn norm(s: &str) -> String {
    quotes::normalize(s)
        .to_lowercase()
        .replace("licence", "license")
        .replace(" million", "m")
}

/// One aspect of a report as dra wrote it: its label, its Answer line (with
/// the sub-topic lines under it) and its Findings subsection.
#[derive(Debug, Default)]
struct ReportAspect {
    label: String,
    answer: String,
    findings: String,
}

/// The aspects of a report: `- **Label**: ...` lines of the Answer and
/// `### Label` subsections of the Findings, joined by label.
fn report_aspects(report: &str) -> Vec<ReportAspect> {
    let mut out: Vec<ReportAspect> = Vec::new();
    let mut current: Option<usize> = None;
    for line in section(report, "Answer").lines() {
        if let Some(rest) = line.strip_prefix("- **")
            && let Some((label, value)) = rest.split_once("**:")
        {
            out.push(ReportAspect {
                label: label.trim().to_string(),
                answer: value.trim().to_string(),
                findings: String::new(),
            });
            current = Some(out.len() - 1);
        } else if line.starts_with("  ")
            && let Some(i) = current
        {
            out[i].answer.push('\n');
            out[i].answer.push_str(line.trim());
        } else {
            current = None;
        }
    }
    let mut current: Option<usize> = None;
    for line in evidence_section(report).lines() {
        if let Some(label) = line.strip_prefix("### ") {
            let label = label.trim();
            current = Some(
                match out.iter().position(|a| a.label.eq_ignore_ascii_case(label)) {
                    Some(i) => i,
                    None => {
                        out.push(ReportAspect {
                            label: label.to_string(),
                            ..ReportAspect::default()
                        });
                        out.len() - 1
                    }
                },
            );
        } else if let Some(i) = current {
            out[i].findings.push_str(line);
            out[i].findings.push('\n');
        }
    }
    out
}

/// Words of a question or label that say what kind of answer is asked
/// for, not what about; they match any label.
const ASK_WORDS: &[&str] = &[
    "how", "does", "did", "much", "many", "must", "today", "current",
];

/// The key terms of a label: stemmed content words (the claim check's).
fn key_terms(text: &str) -> BTreeSet<String> {
    let ask: BTreeSet<String> = ASK_WORDS.iter().map(|w| facts::stem(w)).collect();
    facts::terms(&facts::fold(text))
        .into_iter()
        .filter(|t| !ask.contains(t))
        .collect()
}

/// The clause of the question a gold key stands for: the clause (split at
/// commas, semicolons and question marks) sharing most key terms with it.
/// Gold keys paraphrase the question ("when it took effect" for "when did
/// it take effect"), and dra labels aspects from the question's words.
/// Between clauses sharing as many key terms, the one sharing more of the
/// key's words as written wins ("what changed" is "What changed in version
/// 3...", not "what must publishers change"), then the shorter.
fn question_clause(question: &str, key: &BTreeSet<String>, key_text: &str) -> BTreeSet<String> {
    let surface = |t: &str| -> BTreeSet<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let key_words = surface(key_text);
    question
        .split([',', ';', '?'])
        .map(|clause| {
            let c = key_terms(clause);
            let words = surface(clause).intersection(&key_words).count();
            (c.intersection(key).count(), words, c)
        })
        .filter(|(shared, _, _)| *shared > 0)
        .max_by_key(|(shared, words, c)| (*shared, *words, std::cmp::Reverse(c.len())))
        .map(|(_, _, c)| c)
        .unwrap_or_default()
}

/// The report aspect a gold key names: the label sharing most key terms
/// with the key itself, then most with the key's clause of the question,
/// then carrying fewest other terms. A label must share at least one term
/// with the key, or two with its clause; none that does means the field
/// was not reported.
fn match_aspect<'a>(
    aspects: &'a [ReportAspect],
    question: &str,
    key: &str,
) -> Option<&'a ReportAspect> {
    let key_text = key;
    let key = key_terms(key);
    let clause = question_clause(question, &key, key_text);
    aspects
        .iter()
        .map(|a| {
            let label = key_terms(&a.label);
            let direct = label.intersection(&key).count();
            let via_clause = label.intersection(&clause).count();
            let other = label
                .difference(&key)
                .filter(|t| !clause.contains(*t))
                .count();
            (a, direct, via_clause, other)
        })
        .filter(|(_, direct, via_clause, _)| *direct >= 1 || *via_clause >= 2)
        .max_by_key(|(_, direct, via_clause, other)| {
            (*direct, *via_clause, std::cmp::Reverse(*other))
        })
        .map(|(a, ..)| a)
}

/// What the report states for a gold key: the Answer line of the matched
/// aspect (with its sub-topic lines), or, when the aspect has no Answer
/// line, its findings. The Answer line decides when present, so that a
/// stale value among the findings never passes for the current one.
fn reported_for(report: &str, question: &str, key: &str) -> Option<String> {
    let aspects = report_aspects(report);
    let a = match_aspect(&aspects, question, key)?;
    let text = if a.answer.is_empty() {
        a.findings.trim()
    } else {
        a.answer.trim()
    };
    (!text.is_empty()).then(|| text.to_string())
}

/// The evidence listed per aspect: the Evidence section of dra's own
/// reports, the Findings of a model's.
fn evidence_section(report: &str) -> &str {
    let evidence = section(report, "Evidence");
    if evidence.is_empty() {
        section(report, "Findings")
    } else {
        evidence
    }
}

fn section<'a>(report: &'a str, title: &str) -> &'a str {
    report
        .split("\n## ")
        .find(|s| s.to_lowercase().starts_with(&title.to_lowercase()))
        .unwrap_or("")
}

pub fn score_case(case: &GoldCase, summary: &RunSummary) -> anyhow::Result<CaseScore> {
    let report_path = summary
        .report_path
        .clone()
        .context("the run wrote no report")?;
    let report = std::fs::read_to_string(&report_path)?;
    let sources: Vec<SourceEntry> = serde_json::from_str(&std::fs::read_to_string(
        summary.run_dir.join("sources.json"),
    )?)?;
    let mut score = CaseScore {
        id: case.id.clone(),
        status: format!("{}:{}", summary.state.as_str(), summary.reason.as_str()),
        report: Some(report_path),
        tool_calls: summary.tool_calls,
        tokens: summary.total_tokens,
        cost_usd: summary.cost_usd,
        seconds: summary.duration.as_secs_f64(),
        ..CaseScore::default()
    };

    for (aspect, expected) in &case.expected {
        let reported = reported_for(&report, &case.question, aspect);
        let correct = reported
            .as_deref()
            .is_some_and(|r| values::states_value(r, expected));
        score.fields.push(FieldResult {
            aspect: aspect.clone(),
            expected: expected.clone(),
            reported,
            correct,
        });
    }
    score.field_accuracy = ratio(
        score.fields.iter().filter(|f| f.correct).count(),
        score.fields.len(),
    );
    // The worst errors: a wrong current value stated with high confidence.
    score.over_confident_errors = score
        .fields
        .iter()
        .filter(|f| !f.correct)
        .filter(|f| f.reported.as_deref().is_some_and(stated_confidently))
        .count();

    // History counts when the old value is reported outside the answer line.
    let outside_answer = norm(&format!(
        "{}\n{}",
        evidence_section(&report),
        section(&report, "History")
    ));
    let expected_history: Vec<&String> = case.history.values().flatten().collect();
    let found = expected_history
        .iter()
        .filter(|v| outside_answer.contains(&norm(v)))
        .count();
    score.history_recall = ratio(found, expected_history.len());

    // Where the report says the sources disagree (a model's report may
    // call it Conflicts): an aspect counts when the section names it, or
    // lists a label that names it as the fields' labels are matched.
    let disagreement = format!(
        "{}\n{}",
        section(&report, "Where the sources disagree"),
        section(&report, "Conflicts")
    );
    let conflicts = norm(&disagreement);
    let disputed: BTreeSet<String> = disagreement
        .lines()
        .filter_map(|l| l.strip_prefix("- **")?.split_once("**"))
        .map(|(label, _)| label.trim().to_lowercase())
        .collect();
    let aspects = report_aspects(&report);
    let found = case
        .conflicts
        .iter()
        .filter(|c| {
            conflicts.contains(&norm(c))
                || match_aspect(&aspects, &case.question, c)
                    .is_some_and(|a| disputed.contains(&a.label.to_lowercase()))
        })
        .count();
    score.conflict_recall = ratio(found, case.conflicts.len());

    let lower = report.to_lowercase();
    score.forbidden_found = case
        .forbidden
        .iter()
        .filter(|f| lower.contains(&f.to_lowercase()))
        .cloned()
        .collect();

    // Citation support: every quoted claim is in the text of the source it cites.
    let (body, _, _) = citations::split_sources(&report);
    let quoted = crate::re(r#""(.{12,}?)" \[(\d+)\]"#);
    let (mut supported, mut checked) = (0, 0);
    for cap in quoted.captures_iter(body) {
        checked += 1;
        let n: usize = cap[2].parse().unwrap_or(0);
        // The text the run itself kept for the page (corpus and web alike).
        let text = sources
            .get(n.wrapping_sub(1))
            .and_then(|s| std::fs::read_to_string(page_text_file(&summary.run_dir, &s.url)).ok())
            .unwrap_or_default();
        if quotes::quote_in_text(&cap[1], &text) {
            supported += 1;
        }
    }
    score.citations_checked = checked;
    score.citation_support = ratio(supported, checked);

    // Every cited sentence, against the same stored page texts.
    let refs: Vec<SourceRef> = sources
        .iter()
        .map(|s| SourceRef {
            index: s.index,
            url: s.url.clone(),
            title: s.title.clone(),
            published: s.published.clone(),
            updated: s.updated.clone(),
        })
        .collect();
    let claims = check_report(&report, &refs, &summary.run_dir.join("pages"));
    score.claims_checked = claims.checked();
    score.claim_support = claims.rate();
    score.unsupported_claims = claims
        .unsupported()
        .map(|c| format!("line {}: {:?}: {}", c.line, c.text, c.problems.join("; ")))
        .collect();
    Ok(score)
}

/// Confidence at or above which a wrong answer counts as over-confident.
const OVER_CONFIDENT: f64 = 0.8;

/// Whether an answer line presents its value as settled: a `confidence`
/// of [`OVER_CONFIDENT`] or more (a model's report), or several
/// independent sources agreeing (dra's own).
fn stated_confidently(line: &str) -> bool {
    confidence_in(line).is_some_and(|c| c >= OVER_CONFIDENT)
        || line.contains("independent sources agree")
}

/// The `confidence 0.93` an answer line states, if it states one.
fn confidence_in(line: &str) -> Option<f64> {
    let rest = line.split("confidence ").nth(1)?;
    rest.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()?
        .parse()
        .ok()
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

pub fn run(g: &GlobalArgs, args: &EvalArgs) -> CliResult {
    let text = std::fs::read_to_string(&args.gold)
        .with_context(|| format!("cannot read gold set {}", args.gold.display()))
        .map_err(CliError::Usage)?;
    let gold: GoldSet = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a valid gold set", args.gold.display()))
        .map_err(CliError::Usage)?;
    let base = args.gold.parent().unwrap_or_else(|| Path::new("."));
    // An evaluation is reproducible: it neither reads nor writes the
    // lessons of earlier runs (they would change which pages are read).
    let mut flags = std::collections::BTreeMap::new();
    flags.insert(crate::config::settings::MEMORY, "false".to_string());
    let config = super::resolve_config(g, flags)?;
    let settings = Settings::from_config(&config);
    let rt = runtime()?;
    let mut scores = Vec::new();
    for case in gold
        .cases
        .iter()
        .filter(|c| args.case.as_ref().is_none_or(|id| &c.id == id))
    {
        let corpus_path = base.join(&case.corpus);
        let source = match case.corpus.as_str() {
            "embedded" => Source::Embedded,
            "live" => Source::Web,
            _ => Source::Corpus(corpus_path.clone()),
        };
        let prepared = app::prepare(
            &settings,
            config.redacted(),
            RunInputs {
                question: case.question.clone(),
                source,
                base_url: None,
                anchors: case.entity.clone(),
                corpus_progress: None,
                continues: None,
                mcp_flags: Vec::new(),
                skill: None,
                since: None,
                answers: Vec::new(),
                answers_in_process: false,
            },
        )
        .map_err(setup_error)?;
        let warnings: Vec<_> = prepared
            .notes
            .iter()
            .filter(|n| matches!(n.level, app::NoteLevel::Warning | app::NoteLevel::Loader))
            .cloned()
            .collect();
        print_notes(g, &warnings);
        let summary = rt.block_on(app::run_to_end(prepared));
        let summary = summary
            .map_err(|e| CliError::Failure(anyhow::anyhow!("case {}: {e}", case.id)))?
            .ok_or_else(|| {
                CliError::Failure(anyhow::anyhow!("case {}: the run never started", case.id))
            })?;
        let score = score_case(case, &summary)
            .map_err(|e| CliError::Failure(e.context(format!("case {}", case.id))))?;
        scores.push(score);
    }
    if scores.is_empty() {
        return Err(CliError::Usage(anyhow::anyhow!(
            "no case matched in {}",
            args.gold.display()
        )));
    }
    let failures = check_thresholds(&gold.thresholds, &scores);
    if g.json {
        let v = serde_json::json!({"gold": gold.name, "cases": scores, "thresholds": gold.thresholds, "failures": failures, "passed": failures.is_empty()});
        print_stdout(
            format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default()).as_bytes(),
        );
    } else {
        let mut s = format!("gold set {} ({} case(s))\n", gold.name, scores.len());
        for c in &scores {
            s.push_str(&format!(
                "\n{} [{}]\n  field accuracy    {:.0}%\n  history recall    {:.0}%\n  citation support  {:.0}% ({} quotes)\n  claim support     {:.0}% ({} cited sentences)\n  conflict recall   {:.0}%\n  forbidden found   {}\n  over-confident    {}\n  cost              {} tool calls, {} tokens, ${:.4}, {:.2} s\n",
                c.id,
                c.status,
                c.field_accuracy * 100.0,
                c.history_recall * 100.0,
                c.citation_support * 100.0,
                c.citations_checked,
                c.claim_support * 100.0,
                c.claims_checked,
                c.conflict_recall * 100.0,
                if c.forbidden_found.is_empty() { "none".to_string() } else { c.forbidden_found.join(", ") },
                c.over_confident_errors,
                c.tool_calls,
                c.tokens,
                c.cost_usd,
                c.seconds
            ));
            for u in &c.unsupported_claims {
                s.push_str(&format!("  unsupported {u}\n"));
            }
            for f in c.fields.iter().filter(|f| !f.correct) {
                s.push_str(&format!(
                    "  wrong {}: expected {:?}, reported {:?}\n",
                    f.aspect,
                    f.expected,
                    f.reported.as_deref().unwrap_or("nothing")
                ));
            }
        }
        s.push_str(&if failures.is_empty() {
            "\nall thresholds met\n".to_string()
        } else {
            format!("\nthresholds missed:\n- {}\n", failures.join("\n- "))
        });
        print_stdout(s.as_bytes());
    }
    Ok(if failures.is_empty() {
        Exit::Ok
    } else {
        Exit::Failure
    })
}

fn check_thresholds(t: &Thresholds, scores: &[CaseScore]) -> Vec<String> {
    let mut out = Vec::new();
    for c in scores {
        let mut min = |name: &str, value: f64, bound: Option<f64>| {
            if let Some(b) = bound
                && value + 1e-9 < b
            {
                out.push(format!("{}: {name} {:.2} < {b:.2}", c.id, value));
            }
        };
        min("field accuracy", c.field_accuracy, t.field_accuracy);
        min("history recall", c.history_recall, t.history_recall);
        min("citation support", c.citation_support, t.citation_support);
        min("claim support", c.claim_support, t.claim_support);
        min("conflict recall", c.conflict_recall, t.conflict_recall);
        if let Some(m) = t.max_forbidden
            && c.forbidden_found.len() > m
        {
            out.push(format!(
                "{}: forbidden strings found: {}",
                c.id,
                c.forbidden_found.join(", ")
            ));
        }
        if let Some(m) = t.max_over_confident_errors
            && c.over_confident_errors > m
        {
            out.push(format!(
                "{}: {} over-confident errors",
                c.id, c.over_confident_errors
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_confidence_from_answer_lines() {
        assert_eq!(
            confidence_in("\"x\" [1] (confidence 0.93, as of 2026-01-01)"),
            Some(0.93)
        );
        assert_eq!(confidence_in("\"x\" [1] (as of 2026-01-01)"), None);
        assert!(stated_confidently(
            "\"x\" [1] (3 independent sources agree)"
        ));
        assert!(!stated_confidently(
            "\"x\" [1] (as of 2026-01-01; one source only)"
        ));
    }

    const REPORT: &str = "# R\n\n**Question:** q\n\n## Answer\n\nIn short: ...\n\nBy aspect:\n\n\
- **When did CurbSpec 3 take effect**: \"CurbSpec 3.0 took effect on 1 July 2026.\" [1] (confidence 0.91, as of 2026-07-01)\n\
- **Quillstore licence**: \"Quillstore is licensed under the Business Source License 1.1.\" [2] (confidence 0.90)\n\
- **Brinewood licence**: \"Brinewood is released under the Mozilla Public License 2.0.\" [3] (confidence 0.88)\n\
- **Quillstore write throughput**: \"Quillstore wrote 182,000 keys per second.\" [4] (confidence 0.85)\n\
  - Batched: \"Batched writes reach 240,000 keys per second.\" [4]\n\
- **Daily charge today**: \"The daily charge is £7.50.\" [5] (confidence 0.93)\n\
\n## Findings\n\n### When did CurbSpec 3 take effect\n\n\
- \"It was scheduled to take effect on 1 April 2026.\" [6] (news, as of 2025-11-18)\n\
- \"CurbSpec 3.0 took effect on 1 July 2026.\" [1] (official)\n\n\
### Which cities adopted CurbSpec 3\n\n\
- \"Four cities publish certified feeds: Port Alder, Velmont, Haverlund and Castellan Bay.\" [7]\n\n\
## Gaps\n\n- none\n";

    const Q_CURB: &str = "What changed in version 3 of CurbSpec, when did it take effect, and which cities have adopted it?";
    const Q_KV: &str = "How do the Quillstore and Brinewood embedded databases compare on licence, replication and write throughput?";

    fn correct(question: &str, key: &str, expected: &str) -> bool {
        reported_for(REPORT, question, key).is_some_and(|r| values::states_value(&r, expected))
    }

    #[test]
    fn a_key_takes_the_clause_written_with_its_words() {
        let q = "What changed in version 3 of CurbSpec, when did it take effect, what must publishers change, and which cities have adopted it?";
        let report = "# R\n\n## Answer\n\n\
- **What changed in version 3 of CurbSpec**: \"CurbSpec 3.0 replaces hours with time_rules.\" [1]\n\
- **What must publishers change**: \"Publishers must rename zone_type to curb_use.\" [2]\n\n## Gaps\n";
        let r = reported_for(report, q, "what changed").unwrap_or_default();
        assert!(r.contains("time_rules"), "{r}");
        let r = reported_for(report, q, "what publishers must change").unwrap_or_default();
        assert!(r.contains("curb_use"), "{r}");
    }

    #[test]
    fn gold_keys_match_aspects_by_key_terms() {
        // A paraphrased key ("took" against "take") matches through its clause of the question.
        let r = reported_for(REPORT, Q_CURB, "when it took effect").unwrap();
        assert!(r.contains("1 July 2026"), "{r}");
        // Of two compared items, the label naming the key's item wins.
        assert!(correct(
            Q_KV,
            "Brinewood licence",
            "Mozilla Public License 2.0"
        ));
        assert!(correct(
            Q_KV,
            "Quillstore licence",
            "Business Source License"
        ));
        assert!(!correct(
            Q_KV,
            "Quillstore licence",
            "Mozilla Public License 2.0"
        ));
        // An aspect with no Answer line is read from its findings.
        assert!(correct(Q_CURB, "which cities adopted it", "Castellan Bay"));
        // Nothing shares a term with the key: not reported.
        assert_eq!(reported_for(REPORT, Q_CURB, "maximum value size"), None);
    }

    #[test]
    fn values_are_compared_normalised_and_whole() {
        // Dates in any spelling, thousands separators, spelling of licence.
        assert!(correct(Q_CURB, "when it took effect", "2026-07-01"));
        assert!(correct(Q_CURB, "when it took effect", "July 1, 2026"));
        assert!(correct(Q_KV, "Quillstore write throughput", "182000"));
        assert!(correct(
            Q_KV,
            "Quillstore licence",
            "Business Source Licence"
        ));
        assert!(correct(Q_CURB, "daily charge today", "£7.50"));
    }

    #[test]
    fn a_changed_digit_or_name_fails_the_field() {
        assert!(!correct(Q_CURB, "when it took effect", "1 July 2025"));
        assert!(!correct(Q_CURB, "when it took effect", "11 July 2026"));
        assert!(!correct(Q_KV, "Quillstore write throughput", "182,001"));
        assert!(!correct(Q_KV, "Quillstore write throughput", "82,000"));
        assert!(!correct(Q_CURB, "daily charge today", "£7.60"));
        assert!(!correct(Q_CURB, "daily charge today", "$7.50"));
        assert!(!correct(
            Q_KV,
            "Brinewood licence",
            "Mozilla Public License 3.0"
        ));
        assert!(!correct(
            Q_CURB,
            "which cities adopted it",
            "Castellan Beach"
        ));
        // A stale value among the findings does not pass when the Answer line says otherwise.
        assert!(!correct(Q_CURB, "when it took effect", "1 April 2026"));
        // The same checks on a report whose digit or name was changed.
        let changed = REPORT
            .replace("182,000", "183,000")
            .replace("Mozilla", "Apache");
        let got = |k: &str, v: &str| {
            reported_for(&changed, Q_KV, k).is_some_and(|r| values::states_value(&r, v))
        };
        assert!(!got("Quillstore write throughput", "182,000"));
        assert!(!got("Brinewood licence", "Mozilla Public License 2.0"));
        assert!(got("Quillstore licence", "Business Source License"));
    }
}
