//! `dra index PATH`: embeds every passage of a corpus ahead of time, so
//! later `dra ask --corpus PATH` runs rank the whole corpus by meaning as
//! well as by words. The vectors are kept in dra's cache directory; a run
//! again embeds only what changed.

use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{CliError, CliResult, Exit, GlobalArgs, print_stdout};
use crate::config::Settings;

/// Passages embedded per step of the progress bar.
const STEP: usize = 32;

#[derive(clap::Args, Debug)]
pub struct IndexArgs {
    /// The corpus folder or file, as given to `dra ask --corpus`.
    pub path: PathBuf,
}

pub fn run(g: &GlobalArgs, args: &IndexArgs) -> CliResult {
    let config = super::resolve_config(g, Default::default())?;
    for w in &config.warnings {
        errln!("warning: {w}");
    }
    let settings = Settings::from_config(&config);
    if settings.corpus.embed_model.is_none() {
        return Err(CliError::Usage(anyhow::anyhow!(
            "dra index embeds passages with a sentence-transformers model: set {} to its folder ({}), e.g. all-MiniLM-L6-v2",
            crate::embed::MODEL_KEY,
            crate::embed::MODEL_FILES.join(", ")
        )));
    }
    let started = Instant::now();
    let mut notes = Vec::new();
    let (corpus, _label) = crate::app::open_corpus(&settings, &args.path, None, &mut notes)
        .map_err(super::ask::setup_error)?;
    for n in &notes {
        errln!("warning: {}", super::shown(&n.text));
    }
    let (all, before) = corpus.dense_coverage().unwrap_or_default();
    let bar = if g.quiet || g.json || all == before {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::with_draw_target(
            Some((all - before) as u64),
            ProgressDrawTarget::stderr(),
        );
        b.set_style(
            ProgressStyle::with_template(
                "embedding {bar:30} {pos}/{len} passages, {per_sec}, {eta} left",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    };
    let embedding = Instant::now();
    corpus
        .embed_all(STEP, &mut |done, _| bar.set_position(done as u64))
        .map_err(|e| CliError::Failure(anyhow::anyhow!(e)))?;
    bar.finish_and_clear();
    let new = all - before;
    let rate = new as f64 / embedding.elapsed().as_secs_f64().max(1e-9);
    let out = if g.json {
        let row = serde_json::json!({
            "corpus": args.path.display().to_string(),
            "documents": corpus.len(),
            "passages": all,
            "embedded": new,
            "already_embedded": before,
            "seconds": started.elapsed().as_secs_f64(),
        });
        format!("{row}\n")
    } else {
        format!(
            "{} ({} documents): {new} passages embedded ({before} already were; {:.0} passages/s), {all} in all, in {:.1} s\n",
            super::shown(&args.path.display().to_string()),
            corpus.len(),
            if new > 0 { rate } else { 0.0 },
            started.elapsed().as_secs_f64()
        )
    };
    print_stdout(out.as_bytes());
    Ok(Exit::Ok)
}
