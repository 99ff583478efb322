//! `dra eval GOLD.json`: runs the cases of a gold set and scores them with
//! the metrics of seed 001: field accuracy, history recall, citation
//! support, conflict recall, forbidden content, over-confident errors, cost.

use std::collections::BTreeMap;
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
use crate::evidence::quotes;
use crate::protocol::EntityAnchors;
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

/// The Answer line for an aspect: `- **Aspect**: ...`.
fn answer_for<'a>(report: &'a str, aspect: &str) -> Option<&'a str> {
    let answer = report
        .split("\n## ")
        .find(|s| s.starts_with("Answer"))
        .unwrap_or("");
    let wanted = format!("**{}**", aspect.to_lowercase());
    answer
        .lines()
        .find(|l| l.to_lowercase().contains(&wanted))
        .map(|l| l.split_once("**:").map(|x| x.1).unwrap_or(l).trim())
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
        status: format!(
            "{}:{}",
            serde_json::to_value(summary.state)?.as_str().unwrap_or(""),
            serde_json::to_value(summary.reason)?.as_str().unwrap_or("")
        ),
        report: Some(report_path),
        tool_calls: summary.tool_calls,
        tokens: summary.total_tokens,
        cost_usd: summary.cost_usd,
        seconds: summary.duration.as_secs_f64(),
        ..CaseScore::default()
    };

    for (aspect, expected) in &case.expected {
        let reported = answer_for(&report, aspect).map(str::to_string);
        let correct = reported
            .as_deref()
            .is_some_and(|r| norm(r).contains(&norm(expected)));
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
        .filter_map(|f| confidence_in(f.reported.as_deref()?))
        .filter(|c| *c >= OVER_CONFIDENT)
        .count();

    // History counts when the old value is reported outside the answer line.
    let outside_answer = norm(&format!(
        "{}\n{}",
        section(&report, "Findings"),
        section(&report, "History")
    ));
    let expected_history: Vec<&String> = case.history.values().flatten().collect();
    let found = expected_history
        .iter()
        .filter(|v| outside_answer.contains(&norm(v)))
        .count();
    score.history_recall = ratio(found, expected_history.len());

    let conflicts = norm(section(&report, "Conflicts"));
    let found = case
        .conflicts
        .iter()
        .filter(|c| conflicts.contains(&norm(c)))
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
    let config = super::resolve_config(g, Default::default())?;
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
            },
        )
        .map_err(setup_error)?;
        let warnings: Vec<_> = prepared
            .notes
            .iter()
            .filter(|n| n.level == app::NoteLevel::Warning)
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
    }

    #[test]
    fn finds_answer_lines_by_aspect() {
        let report = "# R\n\n## Answer\n\n- **Licence status**: \"final\" [1]\n\n## Findings\n";
        assert_eq!(answer_for(report, "licence status"), Some("\"final\" [1]"));
        assert_eq!(answer_for(report, "pricing"), None);
    }
}
