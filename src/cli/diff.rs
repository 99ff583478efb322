//! `dra diff RUN_A RUN_B`: what changed between two runs (see
//! [`crate::changes`]), as Markdown on stdout (or one JSON object with
//! `--json`), also written to changes.md; `--exit-code` exits 9 when an
//! answer moved and 0 when none did, so cron and CI alert only on change.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{CliError, CliResult, Exit, GlobalArgs, print_stdout};
use crate::changes::{self, Changes};
use crate::store::checkpoint::find_run;
use crate::store::runs::{RunInfo, list_runs};

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The older run: its id, a unique prefix or its directory.
    #[arg(value_name = "RUN_A", required_unless_present = "last")]
    pub from: Option<String>,
    /// The newer run.
    #[arg(value_name = "RUN_B", required_unless_present = "last")]
    pub to: Option<String>,
    /// Compare the newest run with the latest earlier run of the same
    /// question (`--last` or `--last 2`).
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "2", conflicts_with_all = ["from", "to"])]
    pub last: Option<usize>,
    /// Exit 9 when an answer changed, appeared or was retracted, and 0 when
    /// none did (as `git diff --exit-code`).
    #[arg(long)]
    pub exit_code: bool,
    /// Where to write changes.md (default: the newer run's directory).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(g: &GlobalArgs, args: &DiffArgs) -> CliResult {
    let config = super::resolve_config(g, Default::default())?;
    let runs_dir = crate::config::Settings::from_config(&config).runs_dir;
    let (from, to) = match (args.last, &args.from, &args.to) {
        (Some(n), _, _) => last_two(&runs_dir, n)?,
        (None, Some(a), Some(b)) => (find(&runs_dir, a)?, find(&runs_dir, b)?),
        _ => {
            return Err(CliError::Usage(anyhow::anyhow!(
                "name two runs (dra diff RUN_A RUN_B) or compare the latest two runs of a question with --last"
            )));
        }
    };
    let c = changes::between(&from, &to).map_err(|e| CliError::Usage(anyhow::anyhow!(e)))?;
    let md = changes::markdown(&c);
    let path = args.output.clone().unwrap_or_else(|| to.join("changes.md"));
    crate::store::write_atomic(&path, md.as_bytes())
        .map_err(|e| CliError::Failure(anyhow::anyhow!("cannot write {}: {e}", path.display())))?;
    if g.json {
        let mut v = serde_json::to_value(&c).unwrap_or_default();
        v["changed"] = c.any().into();
        v["changes_md"] = path.display().to_string().into();
        print_stdout(format!("{v}\n").as_bytes());
    } else {
        print_stdout(md.as_bytes());
        if !g.quiet {
            errln!("dra: wrote {}", path.display());
        }
    }
    Ok(exit_for(&c, args.exit_code))
}

fn exit_for(c: &Changes, exit_code: bool) -> Exit {
    if exit_code && c.any() {
        Exit::Changed
    } else {
        Exit::Ok
    }
}

fn find(runs_dir: &Path, spec: &str) -> Result<PathBuf, CliError> {
    find_run(runs_dir, Some(spec)).map_err(|e| CliError::Usage(anyhow::anyhow!("{e}")))
}

fn question_key(r: &RunInfo) -> Option<String> {
    changes::question_key(r.question.as_deref()?)
}

/// The newest run and the latest earlier run of the same question.
fn last_two(runs_dir: &Path, n: usize) -> Result<(PathBuf, PathBuf), CliError> {
    if n != 2 {
        return Err(CliError::Usage(anyhow::anyhow!(
            "--last {n}: a diff compares two runs; use --last 2 (or --last)"
        )));
    }
    let runs = list_runs(runs_dir).map_err(|e| {
        CliError::Failure(anyhow::anyhow!(
            "cannot read the runs dir {}: {e}",
            runs_dir.display()
        ))
    })?;
    let Some(newest) = runs.first() else {
        return Err(CliError::Usage(anyhow::anyhow!(
            "no runs in {}: run `dra ask` twice, then diff",
            runs_dir.display()
        )));
    };
    let key = question_key(newest);
    let earlier = runs[1..]
        .iter()
        .find(|r| key.is_some() && question_key(r) == key)
        .ok_or_else(|| {
            CliError::Usage(anyhow::anyhow!(
                "run {} is the only run of its question in {}: name two runs (dra diff RUN_A RUN_B)",
                newest.id,
                runs_dir.display()
            ))
        })?;
    Ok((earlier.dir.clone(), newest.dir.clone()))
}
