//! `dra index PATH`: builds or brings up to date the on-disk index of a
//! corpus folder (kept in dra's cache directory; later `dra ask --corpus
//! PATH` runs start searching at once), and with an embedding model embeds
//! every passage ahead of time, so those runs rank the whole corpus by
//! meaning as well as by words. `--list` and `--prune` manage the cached
//! indexes; `--reindex` builds one anew.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{CliError, CliResult, Exit, GlobalArgs, print_stdout};
use crate::config::Settings;
use crate::corpus::cache::{self, Listed};

/// Passages embedded per step of the progress bar.
const STEP: usize = 32;

#[derive(clap::Args, Debug)]
pub struct IndexArgs {
    /// The corpus folder or file, as given to `dra ask --corpus`.
    #[arg(required_unless_present_any = ["list", "prune"])]
    pub path: Option<PathBuf>,
    /// Throw away the folder's cached index and read every file again.
    #[arg(long)]
    pub reindex: bool,
    /// List the cached corpus indexes: folder, pages, size on disk, last refresh.
    #[arg(long, conflicts_with_all = ["path", "prune", "reindex"])]
    pub list: bool,
    /// Remove the cached indexes whose folder no longer exists.
    #[arg(long, conflicts_with_all = ["path", "list", "reindex"])]
    pub prune: bool,
}

pub fn run(g: &GlobalArgs, args: &IndexArgs) -> CliResult {
    if args.list || args.prune {
        return manage(g, args.prune);
    }
    let Some(path) = &args.path else {
        return Err(CliError::Usage(anyhow::anyhow!(
            "dra index needs a corpus folder or file (or --list, --prune)"
        )));
    };
    let config = super::resolve_config(g, Default::default())?;
    for w in &config.warnings {
        errln!("warning: {w}");
    }
    let settings = Settings::from_config(&config);
    let started = Instant::now();
    let bar = file_bar(g);
    let opts = crate::corpus::LoadOptions {
        progress: Some(Arc::new({
            let bar = bar.clone();
            move |done, all, bytes| {
                bar.set_length(all as u64);
                bar.set_position(done as u64);
                bar.set_message(HumanBytes(bytes).to_string());
            }
        })),
        ..crate::app::corpus_options(&settings)
    };
    let (mut corpus, refreshed) = crate::app::load_corpus(path, &opts, args.reindex)
        .map_err(|e| CliError::Usage(anyhow::anyhow!(e)))?;
    bar.finish_and_clear();
    let indexed = started.elapsed().as_secs_f64();
    // As `dra ask` shows them: the first few, then how many more (-v: all).
    let notes: Vec<crate::app::Note> = corpus
        .warnings()
        .iter()
        .map(|w| crate::app::Note {
            level: crate::app::NoteLevel::Loader,
            text: crate::corpus::printable(w),
        })
        .collect();
    super::ask::print_notes(g, &notes);
    let embedded = embed(g, &settings, path, &mut corpus)?;
    let refreshed = refreshed.unwrap_or_default();
    let out = if g.json {
        let mut row = serde_json::json!({
            "corpus": path.display().to_string(),
            "documents": corpus.len(),
            "added": refreshed.added,
            "changed": refreshed.changed,
            "deleted": refreshed.deleted,
            "unchanged": refreshed.unchanged,
            "bytes_read": refreshed.bytes_read,
            "rebuilt": refreshed.rebuilt,
            "warnings": corpus.warnings().len(),
            "index_seconds": indexed,
            "seconds": started.elapsed().as_secs_f64(),
        });
        if let Some(e) = &embedded {
            row["passages"] = e.all.into();
            row["embedded"] = e.new.into();
            row["already_embedded"] = e.before.into();
        }
        format!("{row}\n")
    } else {
        let mut line = format!(
            "{} ({}): {} new, {} changed, {} deleted, {} unchanged; read {} in {:.1} s\n",
            super::shown(&path.display().to_string()),
            crate::count(corpus.len(), "document"),
            refreshed.added,
            refreshed.changed,
            refreshed.deleted,
            refreshed.unchanged,
            HumanBytes(refreshed.bytes_read),
            indexed
        );
        match &embedded {
            Some(e) => line.push_str(&format!(
                "{} passages embedded ({} already were; {:.0} passages/s), {} in all, in {:.1} s\n",
                e.new, e.before, e.rate, e.all, e.seconds
            )),
            None => line.push_str(&format!(
                "dense search is off: set {} to a sentence-transformers model folder (e.g. all-MiniLM-L6-v2) to embed the passages too\n",
                crate::embed::MODEL_KEY
            )),
        }
        line
    };
    print_stdout(out.as_bytes());
    Ok(Exit::Ok)
}

/// A progress bar over files (hidden with `-q` or `--json`).
fn file_bar(g: &GlobalArgs) -> ProgressBar {
    if g.quiet || g.json {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template(
            "indexing {bar:30} {pos}/{len} files, {msg} read, {per_sec}, {eta} left",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    b
}

/// What embedding did.
struct Embedded {
    all: usize,
    before: usize,
    new: usize,
    rate: f64,
    seconds: f64,
}

/// Embeds every passage without a vector, when a model is set.
fn embed(
    g: &GlobalArgs,
    settings: &Settings,
    path: &std::path::Path,
    corpus: &mut crate::corpus::Corpus,
) -> Result<Option<Embedded>, CliError> {
    if settings.corpus.embed_model.is_none() {
        return Ok(None);
    }
    let mut notes = Vec::new();
    crate::app::rank_by_meaning(settings, path, corpus, &mut notes)
        .map_err(super::ask::setup_error)?;
    for n in notes
        .iter()
        .filter(|n| n.level == crate::app::NoteLevel::Warning)
    {
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
    let started = Instant::now();
    corpus
        .embed_all(STEP, &mut |done, _| bar.set_position(done as u64))
        .map_err(|e| CliError::Failure(anyhow::anyhow!(e)))?;
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    let new = all - before;
    Ok(Some(Embedded {
        all,
        before,
        new,
        rate: if new > 0 {
            new as f64 / seconds.max(1e-9)
        } else {
            0.0
        },
        seconds,
    }))
}

/// `--list` and `--prune`.
fn manage(g: &GlobalArgs, prune: bool) -> CliResult {
    let Some(root) = crate::corpus::cache_root() else {
        return Err(CliError::Failure(anyhow::anyhow!(
            "no cache directory: set HOME (or XDG_CACHE_HOME)"
        )));
    };
    let rows = if prune {
        cache::prune(&root).map_err(|e| CliError::Failure(anyhow::anyhow!(e)))?
    } else {
        cache::list(&root)
    };
    let mut out = String::new();
    for l in &rows {
        if g.json {
            out.push_str(&serde_json::to_string(l).unwrap_or_default());
            out.push('\n');
        } else {
            out.push_str(&listed_line(l, prune));
        }
    }
    if rows.is_empty() && !g.json {
        out.push_str(if prune {
            "no cached index to prune: every indexed folder still exists\n"
        } else {
            "no cached corpus index yet: `dra index DIR` or `dra ask --corpus DIR` makes one\n"
        });
    }
    print_stdout(out.as_bytes());
    Ok(Exit::Ok)
}

fn listed_line(l: &Listed, removed: bool) -> String {
    let folder = if l.folder.as_os_str().is_empty() {
        format!("(unreadable index {})", l.dir.display())
    } else {
        l.folder.display().to_string()
    };
    let when = chrono::DateTime::from_timestamp(l.refreshed as i64, 0)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default();
    let state = if removed {
        "removed"
    } else if l.folder_exists {
        ""
    } else {
        "folder gone: `dra index --prune` removes it"
    };
    format!(
        "{}  {}, {} on disk, refreshed {}{}{}\n",
        super::shown(&folder),
        crate::count(l.pages, "page"),
        HumanBytes(l.bytes),
        when,
        if state.is_empty() { "" } else { "  " },
        state
    )
}
