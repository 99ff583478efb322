//! `dra watch FILE --once`: every question of a file researched afresh,
//! each compared with its previous run (as `dra ask --since`), and one
//! summary of what changed across the file. dra runs no daemon: cron, a
//! systemd timer or a CI schedule runs `--once`, and `--exit-code` exits 9
//! only when an answer moved.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::{Deserialize, Serialize};

use super::ask::{print_notes, runtime, setup_error};
use super::{CliError, CliResult, Exit, GlobalArgs, print_stdout};
use crate::app::{self, NoteLevel, RunInputs, Source};
use crate::changes::{self, ChangeKind};
use crate::config::Settings;
use crate::store::runs::list_runs;

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The questions: one per line (`#` starts a comment), or TOML
    /// `[[question]]` entries with `question` and optional `corpus`, `web`
    /// and `skill`.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Run every question once now, compare each with its previous run and
    /// exit (schedule this with cron, a systemd timer or CI).
    #[arg(long)]
    pub once: bool,
    /// Exit 9 when an answer changed, appeared or was retracted in any
    /// question, 0 when none did (a failed run keeps its own code).
    #[arg(long)]
    pub exit_code: bool,
}

/// One question of a watch file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Watched {
    pub question: String,
    /// A corpus (file or folder), relative to the watch file.
    #[serde(default)]
    pub corpus: Option<PathBuf>,
    /// Research the web.
    #[serde(default)]
    pub web: bool,
    #[serde(default)]
    pub skill: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WatchToml {
    question: Vec<Watched>,
}

/// The questions of a watch file: TOML `[[question]]` entries when it has
/// a `[[` line, else one question per line. Corpora are relative to the
/// file.
pub fn parse(text: &str, base: &Path) -> Result<Vec<Watched>, String> {
    let toml_shaped = text.lines().any(|l| l.trim_start().starts_with("[["));
    let mut list = if toml_shaped {
        toml::from_str::<WatchToml>(text)
            .map_err(|e| format!("not a watch file: {e}"))?
            .question
    } else {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|q| Watched {
                question: q.to_string(),
                corpus: None,
                web: false,
                skill: None,
            })
            .collect()
    };
    for w in &mut list {
        if w.question.trim().is_empty() {
            return Err("an entry has an empty question".into());
        }
        if w.corpus.is_some() && w.web {
            return Err(format!(
                "\"{}\": corpus and web exclude each other",
                w.question
            ));
        }
        if let Some(c) = &w.corpus
            && c.is_relative()
        {
            w.corpus = Some(base.join(c));
        }
    }
    if list.is_empty() {
        return Err("it has no question (one per line, or [[question]] entries)".into());
    }
    Ok(list)
}

/// What became of one question.
#[derive(Debug, Serialize)]
struct Outcome {
    question: String,
    run_id: String,
    run_dir: PathBuf,
    state: String,
    reason: String,
    /// The previous run it was compared with (none: its first run).
    since_run: Option<String>,
    changed: usize,
    new: usize,
    retracted: usize,
    unchanged: usize,
    changes_md: Option<PathBuf>,
    #[serde(skip)]
    exit: Exit,
}

impl Outcome {
    fn moved(&self) -> bool {
        self.changed + self.new + self.retracted > 0
    }
}

pub fn run(g: &GlobalArgs, args: &WatchArgs) -> CliResult {
    if !args.once {
        return Err(CliError::Usage(anyhow::anyhow!(
            "dra runs no daemon: run `dra watch {} --once` from cron, a systemd timer or a CI schedule",
            args.file.display()
        )));
    }
    let text = std::fs::read_to_string(&args.file).map_err(|e| {
        CliError::Usage(anyhow::anyhow!(
            "cannot read the watch file {}: {e}",
            args.file.display()
        ))
    })?;
    let base = args.file.parent().unwrap_or_else(|| Path::new("."));
    let watched = parse(&text, base)
        .map_err(|e| CliError::Usage(anyhow::anyhow!("{}: {e}", args.file.display())))?;
    // Every corpus is checked before the first run is paid for.
    if let Some(w) = watched
        .iter()
        .find(|w| w.corpus.as_ref().is_some_and(|c| !c.exists()))
    {
        return Err(CliError::Usage(anyhow::anyhow!(
            "{}: \"{}\": no corpus at {} (corpus paths are relative to the watch file)",
            args.file.display(),
            w.question,
            w.corpus.as_deref().unwrap_or(Path::new("")).display()
        )));
    }
    let config = super::resolve_config(g, Default::default())?;
    let settings = Settings::from_config(&config);
    let rt = runtime()?;
    let mut outcomes = Vec::new();
    for w in &watched {
        let since = previous_run(&settings.runs_dir, &w.question);
        let prepared = app::prepare(&settings, config.redacted(), inputs(w, since.clone()))
            .map_err(setup_error)?;
        let warnings: Vec<_> = prepared
            .notes
            .iter()
            .filter(|n| matches!(n.level, NoteLevel::Warning))
            .cloned()
            .collect();
        print_notes(g, &warnings);
        let summary = rt
            .block_on(app::run_to_end(prepared))
            .map_err(|e| CliError::Failure(anyhow::anyhow!("\"{}\": {e}", w.question)))?
            .ok_or_else(|| {
                CliError::Failure(anyhow::anyhow!("\"{}\": the run never started", w.question))
            })?;
        outcomes.push(outcome(w, since.as_deref(), &summary));
    }
    if g.json {
        let v = serde_json::json!({
            "file": args.file,
            "changed": outcomes.iter().any(Outcome::moved),
            "questions": outcomes,
        });
        print_stdout(format!("{v}\n").as_bytes());
    } else {
        print_stdout(summary_text(&args.file, &outcomes).as_bytes());
    }
    let failed = outcomes.iter().map(|o| o.exit).find(|e| *e != Exit::Ok);
    Ok(match failed {
        Some(e) => e,
        None if args.exit_code && outcomes.iter().any(Outcome::moved) => Exit::Changed,
        None => Exit::Ok,
    })
}

fn inputs(w: &Watched, since: Option<PathBuf>) -> RunInputs {
    RunInputs {
        question: w.question.clone(),
        source: match (&w.corpus, w.web) {
            (Some(c), _) => Source::Corpus(c.clone()),
            (None, true) => Source::Web,
            (None, false) => Source::Default,
        },
        base_url: None,
        anchors: Default::default(),
        corpus_progress: None,
        continues: None,
        mcp_flags: Vec::new(),
        skill: w.skill.clone(),
        since,
        answers: Vec::new(),
        answers_in_process: false,
    }
}

/// The newest finished run of the same question (its evidence merged).
fn previous_run(runs_dir: &Path, question: &str) -> Option<PathBuf> {
    let key = changes::question_key(question)?;
    list_runs(runs_dir)
        .ok()?
        .into_iter()
        .find(|r| {
            r.question
                .as_deref()
                .and_then(changes::question_key)
                .as_ref()
                == Some(&key)
                && r.dir.join("evidence.json").is_file()
        })
        .map(|r| r.dir)
}

fn outcome(w: &Watched, since: Option<&Path>, s: &crate::engine::RunSummary) -> Outcome {
    let c = since.and_then(|dir| changes::between(dir, &s.run_dir).ok());
    let count = |k: ChangeKind| c.as_ref().map_or(0, |c| c.count(k));
    let changes_md = s.run_dir.join("changes.md");
    Outcome {
        question: w.question.clone(),
        run_id: crate::store::runs::read_run(&s.run_dir).id,
        run_dir: s.run_dir.clone(),
        state: s.state.as_str().to_string(),
        reason: s.reason.as_str().to_string(),
        since_run: c.as_ref().map(|c| c.from.id.clone()),
        changed: count(ChangeKind::Changed),
        new: count(ChangeKind::New),
        retracted: count(ChangeKind::Retracted),
        unchanged: count(ChangeKind::Unchanged),
        changes_md: changes_md.is_file().then_some(changes_md),
        exit: Exit::for_status(s.state, s.reason),
    }
}

fn summary_text(file: &Path, outcomes: &[Outcome]) -> String {
    let moved = outcomes.iter().filter(|o| o.moved()).count();
    let mut out = format!(
        "# dra watch {}: {} question(s), {moved} with changes\n\n",
        file.display(),
        outcomes.len()
    );
    for o in outcomes {
        let what = if o.exit != Exit::Ok {
            format!("run {} ended: {}", o.run_id, o.reason.replace('_', " "))
        } else if let Some(since) = &o.since_run {
            if o.moved() {
                format!(
                    "{} changed, {} new, {} retracted since run {since}: {}",
                    o.changed,
                    o.new,
                    o.retracted,
                    o.changes_md
                        .as_ref()
                        .map_or(String::new(), |p| p.display().to_string())
                )
            } else {
                format!("no change since run {since}")
            }
        } else {
            format!("first run ({}): nothing to compare with", o.run_id)
        };
        out.push_str(&format!("- {}: {what}\n", o.question));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_file_is_lines_or_toml_entries() {
        let base = Path::new("/srv/watch");
        let lines = parse(
            "# monthly\nWho leads Acme?\n\n  What does Acme charge?  \n",
            base,
        )
        .unwrap();
        assert_eq!(
            lines
                .iter()
                .map(|w| w.question.as_str())
                .collect::<Vec<_>>(),
            ["Who leads Acme?", "What does Acme charge?"]
        );
        let toml = "[[question]]\nquestion = \"Who leads Acme?\"\ncorpus = \"docs\"\n\n[[question]]\nquestion = \"What changed?\"\nweb = true\n";
        let entries = parse(toml, base).unwrap();
        assert_eq!(
            entries[0].corpus.as_deref(),
            Some(Path::new("/srv/watch/docs"))
        );
        assert!(entries[1].web);
        // Mistakes are named.
        let e = parse("[[question]]\nquestion = \"Q\"\ncorpsu = \"docs\"\n", base).unwrap_err();
        assert!(e.contains("corpsu"), "{e}");
        let e = parse(
            "[[question]]\nquestion = \"Q\"\ncorpus = \"d\"\nweb = true\n",
            base,
        )
        .unwrap_err();
        assert!(e.contains("exclude"), "{e}");
        assert!(
            parse("# only a comment\n", base)
                .unwrap_err()
                .contains("no question")
        );
    }
}
