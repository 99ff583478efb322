//! Distils a static (model2vec-style) embedding model from a
//! sentence-transformers BERT model and measures both: the distillation's
//! time, and each model's embedding throughput on passages of a real manual.
//! Not a test: it writes the model and prints what it measured.
//!   usage: DRA_EMBED_MODEL=BERT_DIR cargo bench --bench static_model -- OUT_DIR [PAGES_DIR]
//! OUT_DIR is written only when it holds no model yet. Retrieval quality is
//! the retrieval bench's: run it with DRA_EMBED_MODEL=OUT_DIR.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark fails loudly and prints what it measured"
)]

use std::path::{Path, PathBuf};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let out = PathBuf::from(
        args.first()
            .ok_or("usage: static_model OUT_DIR [PAGES_DIR]")?,
    );
    let bert_dir = PathBuf::from(
        std::env::var_os(dra::embed::MODEL_KEY)
            .ok_or("set DRA_EMBED_MODEL to a BERT model folder")?,
    );
    if !out.join("model.safetensors").is_file() {
        let started = Instant::now();
        dra::embed::distill(&bert_dir, &out, &mut |done, all| {
            if done % 4096 < 256 {
                eprint!("\r{done}/{all} tokens");
            }
        })?;
        println!(
            "\ndistilled {} in {:.1} s",
            out.display(),
            started.elapsed().as_secs_f64()
        );
    }
    let pages = args
        .get(1)
        .map_or_else(|| PathBuf::from("/usr/share/doc/sqlite3"), PathBuf::from);
    let passages = passages_of(&pages, 2000);
    println!("{} passages from {}", passages.len(), pages.display());
    let texts: Vec<&str> = passages.iter().map(String::as_str).collect();
    for dir in [&out, &bert_dir] {
        let model = dra::embed::load(dir)?;
        // The transformer is slow: a tenth of the passages stands for it.
        let n = if dir == &out {
            texts.len()
        } else {
            texts.len() / 10
        };
        let started = Instant::now();
        model.embed(&texts[..n])?;
        let secs = started.elapsed().as_secs_f64();
        println!(
            "{}: {n} passages in {secs:.2} s, {:.0} passages/s",
            model.id(),
            n as f64 / secs.max(1e-9)
        );
    }
    Ok(())
}

/// Passages of about 150 words from the HTML pages under `dir`, tags
/// dropped, at most `max`.
fn passages_of(dir: &Path, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    let tags = regex::Regex::new(r"(?s)<script.*?</script>|<style.*?</style>|<[^>]*>").unwrap();
    for f in files {
        let Ok(html) = std::fs::read_to_string(&f) else {
            continue;
        };
        let text = tags.replace_all(&html, " ");
        let words: Vec<&str> = text.split_whitespace().collect();
        for chunk in words.chunks(150) {
            out.push(chunk.join(" "));
            if out.len() >= max {
                return out;
            }
        }
    }
    out
}
