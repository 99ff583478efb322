//! `dra resume RUN`: continues an interrupted, crashed or paused run from
//! its own records (see `engine::replay`), answering its clarifying
//! questions headlessly with `--answer`/`--answers FILE`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;

use super::{CliError, CliResult, Exit, GlobalArgs};
use crate::app::{self, ResumeOutcome};
use crate::config::Settings;
use crate::store::checkpoint;

#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The run: its id, a unique prefix of it, its directory name or path.
    #[arg(required_unless_present = "last", conflicts_with = "last")]
    pub run: Option<String>,
    /// Resume the most recent run.
    #[arg(long)]
    pub last: bool,
    /// An answer to the run's clarifying questions (repeat once per question, in order; "" for no preference).
    #[arg(long, value_name = "TEXT", conflicts_with = "answers")]
    pub answer: Vec<String>,
    /// The answers in a file: a JSON list of strings, or one per line.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// The domain prompt for this invocation (TEXT or @FILE, as for `ask`);
    /// a changed one re-runs the model calls it affects.
    #[arg(long, value_name = "TEXT|@FILE")]
    pub domain_prompt: Option<String>,
    /// An MCP server for this invocation, as for `ask` (repeat for several).
    /// A run dir is data, not configuration: servers the run was asked with
    /// are connected again only when given here or configured; others are
    /// skipped with a warning and their recorded answers replay.
    #[arg(long = "mcp", value_name = "[LABEL=]URL|COMMAND")]
    pub mcp: Vec<String>,
    /// Ceilings may be raised; what the run spent so far counts.
    #[command(flatten)]
    pub budget: super::ask::BudgetArgs,
}

fn flags(args: &ResumeArgs) -> Result<BTreeMap<&'static str, String>, CliError> {
    let mut f = BTreeMap::new();
    args.budget.put_into(&mut f);
    if let Some(v) = &args.domain_prompt {
        super::ask::put_domain_prompt(v, &mut f)?;
    }
    Ok(f)
}

pub fn run(g: &GlobalArgs, args: &ResumeArgs) -> CliResult {
    let config = super::resolve_config_with_mcp(g, flags(args)?, args.mcp.clone())?;
    for w in &config.warnings {
        errln!("warning: {w}");
    }
    let mut settings = Settings::from_config(&config);
    let dir = checkpoint::find_run(
        &settings.runs_dir,
        if args.last { None } else { args.run.as_deref() },
    )
    .map_err(|e| CliError::Usage(anyhow::anyhow!(e)))?;
    // Servers named only in the run's records are never started: they
    // replay what they answered (a warning says so).
    let configured: Vec<&str> = settings
        .mcp
        .servers
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    let replay_only: Vec<String> = app::recorded_mcp_labels(&dir)
        .into_iter()
        .filter(|l| !configured.contains(&l.as_str()))
        .collect();
    settings.mcp.replay_only = replay_only;
    let answers = match &args.answers {
        Some(path) => super::ask::read_answers(path)?,
        None => args.answer.clone(),
    };
    let outcome = app::prepare_resume(&settings, config.redacted(), &dir, answers)
        .map_err(super::ask::setup_error)?;
    let prepared = match outcome {
        ResumeOutcome::Finished {
            run_id,
            reason,
            report,
        } => {
            let reason = reason.as_str();
            if !g.json {
                errln!("dra: run {run_id} has already finished ({reason}); nothing to resume");
                if let Some(r) = report {
                    super::print_stdout(format!("{}\n", r.display()).as_bytes());
                }
            }
            return Ok(Exit::Ok);
        }
        ResumeOutcome::Waiting { run_id, questions } => {
            return Ok(still_waiting(g, &run_id, questions));
        }
        ResumeOutcome::Ready(p) => *p,
    };
    super::ask::print_notes(g, &prepared.notes);
    if !g.quiet && !g.json {
        errln!("dra: resuming {}", dir.display());
    }
    let runtime = super::ask::runtime()?;
    runtime.block_on(super::ask::drive(g, prepared.engine, prepared.request))
}

/// A paused run resumed without answers: its questions again (on stderr,
/// and as a `clarification` event with `--json`), the line that answers
/// them, and exit 3 as when it first stopped.
fn still_waiting(g: &GlobalArgs, run_id: &str, questions: Vec<String>) -> Exit {
    if g.json {
        let event = crate::protocol::Event {
            seq: 0,
            ts: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            run_id: run_id.to_string(),
            agent: crate::protocol::MAIN_AGENT.to_string(),
            body: crate::protocol::EventBody::Clarification {
                questions: questions.clone(),
            },
        };
        let mut line = serde_json::to_string(&event).unwrap_or_default();
        line.push('\n');
        super::print_stdout(line.as_bytes());
    }
    let pause = super::next_step::Pause {
        run_id: run_id.to_string(),
        questions,
        questions_shown: false,
    };
    for line in super::next_step::waiting(&pause) {
        errln!("{line}");
    }
    Exit::AwaitingClarification
}
