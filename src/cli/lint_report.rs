use std::collections::BTreeSet;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::{CliError, CliResult, Exit, GlobalArgs, print_stdout};
use crate::report::{SourceEntry, citations, hygiene};

#[derive(Debug, Args)]
pub struct LintArgs {
    /// The report (Markdown) to lint.
    pub file: PathBuf,
    /// sources.json to check citations against (default: the report's own Sources section).
    #[arg(long, value_name = "FILE")]
    pub sources: Option<PathBuf>,
}

pub fn run(g: &GlobalArgs, args: &LintArgs) -> CliResult {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read report {}", args.file.display()))
        .map_err(CliError::Usage)?;
    let known: Option<BTreeSet<usize>> = match &args.sources {
        None => None,
        Some(p) => {
            let raw = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read sources {}", p.display()))
                .map_err(CliError::Usage)?;
            let entries: Vec<SourceEntry> = serde_json::from_str(&raw)
                .with_context(|| {
                    format!(
                        "{} is not a sources.json list of {{index, url, ...}} entries",
                        p.display()
                    )
                })
                .map_err(CliError::Usage)?;
            Some(entries.iter().map(|e| e.index).collect())
        }
    };
    let mut problems = citations::lint(&text, known.as_ref());
    let scrub = hygiene::scrub(&text);
    for what in &scrub.removed {
        problems.push(citations::Problem {
            line: 0,
            kind: citations::ProblemKind::Leak,
            message: format!("leaked {what} (the scrub would remove it)"),
        });
    }
    let file = args.file.display().to_string();
    if g.json {
        let v =
            serde_json::json!({ "file": file, "clean": problems.is_empty(), "problems": problems });
        print_stdout(format!("{v}\n").as_bytes());
    } else {
        let mut s = String::new();
        for p in &problems {
            s.push_str(&format!("{file}:{}: {}\n", p.line, p.message));
        }
        if problems.is_empty() && !g.quiet {
            s.push_str(&format!("{file}: clean\n"));
        }
        print_stdout(s.as_bytes());
    }
    Ok(if problems.is_empty() {
        Exit::Ok
    } else {
        Exit::Failure
    })
}
