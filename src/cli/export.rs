//! `dra export [RUN] --format csl-json|bibtex|ris`: a run's cited sources as
//! a bibliography (see [`crate::report::bibliography`]), on stdout or into
//! `--output FILE`, so a report's sources drop into Zotero, Pandoc or LaTeX.

use std::path::PathBuf;

use clap::Args;

use super::{CliError, CliResult, Exit, GlobalArgs, print_stdout};
use crate::report::bibliography::{self, BibFormat};
use crate::report::compose::SourceEntry;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The run: its id, a unique prefix or its directory (default: the newest run).
    #[arg(value_name = "RUN")]
    pub run: Option<String>,
    /// The bibliography format.
    #[arg(long, value_enum)]
    pub format: BibFormat,
    /// Write to FILE instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run(g: &GlobalArgs, args: &ExportArgs) -> CliResult {
    let config = super::resolve_config(g, Default::default())?;
    let runs_dir = crate::config::Settings::from_config(&config).runs_dir;
    let dir = crate::store::checkpoint::find_run(&runs_dir, args.run.as_deref())
        .map_err(|e| CliError::Usage(anyhow::anyhow!("{e}")))?;
    let path = dir.join("sources.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        CliError::Usage(anyhow::anyhow!(
            "{} has no sources to export ({e}): the run has not written its report yet; `dra resume` finishes it",
            path.display()
        ))
    })?;
    let sources: Vec<SourceEntry> = serde_json::from_str(&text).map_err(|e| {
        CliError::Failure(anyhow::anyhow!(
            "{} is not a list of sources ({e})",
            path.display()
        ))
    })?;
    let out = bibliography::render(&sources, args.format);
    match &args.output {
        Some(file) => {
            crate::store::write_atomic(file, out.as_bytes()).map_err(|e| {
                CliError::Failure(anyhow::anyhow!("cannot write {}: {e}", file.display()))
            })?;
            if !g.quiet {
                errln!(
                    "dra: wrote {} ({})",
                    file.display(),
                    crate::count(sources.len(), "source")
                );
            }
        }
        None => {
            print_stdout(out.as_bytes());
        }
    }
    Ok(Exit::Ok)
}
