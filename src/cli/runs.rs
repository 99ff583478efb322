//! `dra runs`: the runs in the runs directory, newest first, read from each
//! run's own files (events.jsonl: the header, the last terminal status and
//! the usage ledger); `--prune AGE` lists and removes old ones. A run whose
//! files cannot be read is listed as `unknown`, never a failure.

use std::io::IsTerminal;
use std::time::Duration;

use chrono::{DateTime, Utc};
use clap::Args;
use serde::Serialize;

use super::{CliError, CliResult, Exit, GlobalArgs, print_stdout};
use crate::store::runs::{RunInfo, list_runs, run_dir_name};

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// One run to show in full (its id, a unique prefix, its directory or
    /// `last`): question, state, how to continue, and its files.
    #[arg(value_name = "RUN", conflicts_with = "prune")]
    pub run: Option<String>,
    /// Remove the runs started longer ago than AGE (e.g. 30d, 12h, 2w, 90m),
    /// after listing them.
    #[arg(long, value_name = "AGE")]
    pub prune: Option<String>,
    /// Prune without asking (needed when stdin or stderr is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Most runs listed.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
}

/// A run age: a number and a unit (`s`, `m`, `h`, `d`, `w`; seconds
/// without one).
pub fn parse_age(raw: &str) -> Option<Duration> {
    let raw = raw.trim();
    let (num, mult) = match raw.char_indices().last()? {
        (i, 'd') => (&raw[..i], 86_400.0),
        (i, 'w') => (&raw[..i], 604_800.0),
        _ => return crate::config::parse_duration(raw),
    };
    let x: f64 = num.trim().parse().ok()?;
    (x.is_finite() && x > 0.0 && x * mult < 1e12).then(|| Duration::from_secs_f64(x * mult))
}

fn started_at(r: &RunInfo) -> Option<DateTime<Utc>> {
    let from_name = r
        .dir
        .file_name()
        .and_then(|n| run_dir_name(&n.to_string_lossy()).map(|(at, _)| at.and_utc()));
    from_name.or_else(|| {
        r.started
            .as_deref()
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
            .map(|d| d.with_timezone(&Utc))
    })
}

fn printable(text: &str, max: usize) -> String {
    let clean: String = super::clarify::printable(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if clean.chars().count() <= max {
        clean
    } else {
        let cut: String = clean.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}\u{2026}")
    }
}

/// A run's state in a few words: a paused run is waiting, not done.
fn state_words(r: &RunInfo) -> String {
    match (r.state.as_str(), r.reason.as_deref()) {
        ("done", Some("awaiting_clarification")) => "waiting for answers".into(),
        ("done", Some("report_delivered") | None) => "done".into(),
        (state, Some(reason)) => {
            // The words the run's own summary uses ("dollar cap reached").
            let words = serde_json::from_value::<crate::protocol::StatusReason>(
                serde_json::Value::String(reason.to_string()),
            )
            .map_or_else(|_| reason.replace('_', " "), |r| r.in_words());
            format!("{state} ({words})")
        }
        (state, None) => state.to_string(),
    }
}

/// The width a listing fits: the terminal's when stdout is one, else
/// `COLUMNS`, else 100.
fn listing_width() -> usize {
    if std::io::stdout().is_terminal() {
        return usize::from(console::Term::stdout().size().1);
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or(100)
}

/// Columns before the question: id, started, state, sources, cost.
const FIXED: usize = 8 + 1 + 16 + 1 + 19 + 1 + 7 + 1 + 7 + 2;

/// The listing, fitted to `width` columns: the question takes what the
/// other columns leave (paths are in `--json` and `dra runs ID`).
fn table(runs: &[RunInfo], width: usize) -> String {
    let question = width.saturating_sub(FIXED).max(12);
    let row = |id: &str, started: &str, state: &str, sources: &str, cost: &str, q: &str| {
        format!("{id:<8} {started:<16} {state:<19} {sources:>7} {cost:>7}  {q}\n")
    };
    let mut s = row("ID", "STARTED", "STATE", "SOURCES", "COST", "QUESTION");
    for r in runs {
        let started = started_at(r)
            .map(|d| d.format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_else(|| "?".into());
        s.push_str(&row(
            &printable(&r.id, 8),
            &started,
            &printable(&state_words(r), 19),
            &r.sources.map_or("-".into(), |n| n.to_string()),
            &r.cost_usd
                .map_or("-".into(), crate::engine::budget::dollars),
            &printable(r.question.as_deref().unwrap_or("?"), question),
        ));
    }
    s
}

/// The questions a paused run waits on: its last `clarification` event.
fn open_questions(dir: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap_or_default();
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|e| e["type"] == "clarification")
        .and_then(|e| e["questions"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|q| q.as_str().map(|q| printable(q, 400)))
        .collect()
}

/// `dra runs ID`: the run's question, state, how to continue, and files.
fn show(r: &RunInfo) -> String {
    let mut s = format!(
        "run {}\nquestion: {}\nstate: {}\n",
        r.id,
        printable(r.question.as_deref().unwrap_or("?"), 2000),
        state_words(r)
    );
    if let Some(at) = started_at(r) {
        s.push_str(&format!("started: {}\n", at.format("%Y-%m-%d %H:%M:%SZ")));
    }
    let cost = r
        .cost_usd
        .map_or("-".into(), crate::engine::budget::dollars);
    let sources = r.sources.map_or("-".into(), |n| n.to_string());
    s.push_str(&format!("sources: {sources}, cost: {cost}\n"));
    let questions = open_questions(&r.dir);
    let next = match (r.state.as_str(), r.reason.as_deref()) {
        ("done", Some("awaiting_clarification")) => {
            for q in &questions {
                s.push_str(&format!("  ? {q}\n"));
            }
            let answers = vec!["--answer \"...\""; questions.len().max(1)].join(" ");
            format!("dra resume {} {answers}", r.id)
        }
        ("done", _) => format!("dra ask --continue {} \"a follow-up question\"", r.id),
        _ => format!("dra resume {}", r.id),
    };
    s.push_str(&format!("next: {next}\n"));
    s.push_str(&format!("folder: {}\n", r.dir.display()));
    for name in [
        "report.md",
        "sources.json",
        "evidence.json",
        "events.jsonl",
        "records.jsonl",
    ] {
        let path = r.dir.join(name);
        if path.is_file() {
            s.push_str(&format!("  {}\n", path.display()));
        }
    }
    s
}

fn print_json<T: Serialize>(v: &T) {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_default();
    s.push('\n');
    print_stdout(s.as_bytes());
}

pub fn run(g: &GlobalArgs, args: &RunsArgs) -> CliResult {
    let config = super::resolve_config(g, Default::default())?;
    let settings = crate::config::Settings::from_config(&config);
    let runs_dir = settings.runs_dir;
    let runs = list_runs(&runs_dir).map_err(|e| {
        CliError::Failure(anyhow::anyhow!(
            "cannot read the runs dir {}: {e}",
            runs_dir.display()
        ))
    })?;
    if let Some(spec) = &args.run {
        let spec = (spec != "last").then_some(spec.as_str());
        let dir = crate::store::checkpoint::find_run(&runs_dir, spec)
            .map_err(|e| CliError::Usage(anyhow::anyhow!("{e}")))?;
        let one = crate::store::runs::read_run(&dir);
        if g.json {
            print_json(&one);
        } else {
            print_stdout(show(&one).as_bytes());
        }
        return Ok(Exit::Ok);
    }
    let Some(age) = &args.prune else {
        let shown: Vec<RunInfo> = runs.into_iter().take(args.limit).collect();
        if g.json {
            print_json(&shown);
        } else if shown.is_empty() {
            errln!("no runs in {}", runs_dir.display());
        } else {
            print_stdout(table(&shown, listing_width()).as_bytes());
        }
        return Ok(Exit::Ok);
    };
    let age = parse_age(age).ok_or_else(|| {
        CliError::Usage(anyhow::anyhow!(
            "--prune {age:?}: expected an age such as 30d, 12h, 2w or 90m"
        ))
    })?;
    let cutoff = Utc::now()
        - chrono::Duration::from_std(age).unwrap_or_else(|_| chrono::Duration::days(365_000));
    let old: Vec<RunInfo> = runs
        .into_iter()
        .filter(|r| started_at(r).is_some_and(|at| at < cutoff))
        .collect();
    if old.is_empty() {
        if g.json {
            print_json(&serde_json::json!({ "deleted": [] }));
        } else {
            errln!(
                "no runs older than {:?} in {}",
                args.prune.as_deref().unwrap_or(""),
                runs_dir.display()
            );
        }
        return Ok(Exit::Ok);
    }
    if !g.json {
        errln!("{} run(s) will be deleted:", old.len());
        for r in &old {
            errln!("  {}", r.dir.display());
        }
        print_stdout(table(&old, listing_width()).as_bytes());
    }
    if !args.yes {
        let tty = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        if !tty || g.json {
            return Err(CliError::Usage(anyhow::anyhow!(
                "refusing to delete {} run(s) without confirmation: no terminal to ask on; pass --yes",
                old.len()
            )));
        }
        let sure = dialoguer::Confirm::new()
            .with_prompt(format!("Delete these {} run(s)?", old.len()))
            .default(false)
            .interact_on(&dialoguer::console::Term::stderr())
            .unwrap_or(false);
        if !sure {
            errln!("nothing deleted");
            return Ok(Exit::Ok);
        }
    }
    let pruned = delete_runs(&old);
    if g.json {
        print_json(&serde_json::json!({ "deleted": pruned.deleted, "skipped": pruned.skipped }));
    } else {
        errln!("deleted {} run(s)", pruned.deleted.len());
    }
    Ok(if pruned.failed == 0 {
        Exit::Ok
    } else {
        Exit::Failure
    })
}

#[derive(Default)]
struct Pruned {
    deleted: Vec<RunInfo>,
    /// Runs a live dra holds locked (a `dra resume` in progress).
    skipped: Vec<RunInfo>,
    failed: usize,
}

/// Deletes each run while holding its lock, taken without waiting: a run
/// a live dra holds is skipped with a note, never deleted under it.
fn delete_runs(old: &[RunInfo]) -> Pruned {
    use crate::store::checkpoint::{LockError, RunLock};
    let mut out = Pruned::default();
    for r in old {
        let lock = match RunLock::acquire(&r.dir) {
            Ok(lock) => lock,
            Err(LockError::Busy { holder, .. }) => {
                errln!(
                    "note: skipped {}: a running dra holds it{} (a resume in progress); prune again once it ends",
                    r.dir.display(),
                    holder.map(|p| format!(" (pid {p})")).unwrap_or_default()
                );
                out.skipped.push(r.clone());
                continue;
            }
            Err(e) => {
                out.failed += 1;
                errln!("error: cannot delete {}: {e}", r.dir.display());
                continue;
            }
        };
        match std::fs::remove_dir_all(&r.dir) {
            Ok(()) => out.deleted.push(r.clone()),
            Err(e) => {
                out.failed += 1;
                errln!("error: cannot delete {}: {e}", r.dir.display());
            }
        }
        drop(lock);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_parse() {
        assert_eq!(parse_age("30d"), Some(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse_age("2w"), Some(Duration::from_secs(14 * 86_400)));
        assert_eq!(parse_age("12h"), Some(Duration::from_secs(12 * 3600)));
        assert_eq!(parse_age("90"), Some(Duration::from_secs(90)));
        assert_eq!(parse_age("d"), None);
        assert_eq!(parse_age("-3d"), None);
        assert_eq!(parse_age("soon"), None);
    }

    proptest::proptest! {
        #[test]
        fn any_age_text_parses_or_not_without_panicking(s in "\\PC{0,12}|[0-9.]{1,6}[smhdw]?") {
            if let Some(d) = parse_age(&s) {
                proptest::prop_assert!(d > Duration::ZERO);
            }
            let _ = run_dir_name(&s);
        }
    }
}
