//! Corpus retrieval quality: recall@k and MRR of `dra ask --corpus` search
//! over real manuals installed from Debian packages, for (question -> page)
//! gold pairs. Two gold sources: the realdocs cases
//! (`tests/gold/realdocs/*.facts.json`, the pages their key facts come from)
//! and the held-out retrieval set (`tests/gold/retrieval/*.json`). Each
//! question is searched twice: as the offline researcher's first query
//! (`question::search_query`) and as typed. A set whose manual is not
//! installed is skipped with the `apt-get install` it needs. Not a test: it
//! measures and prints.
//! With `DRA_EMBED_MODEL` set it also measures hybrid ranking, over BM25's
//! best passages and over every passage (vectors kept in the cache dir);
//! `DRA_BENCH_RANKERS=bm25,full` picks rankers. Each manual is searched
//! through its on-disk index (dra's cache directory, or `DRA_BENCH_CACHE`).
//!   usage: cargo bench --bench retrieval [-- FILTER]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark fails loudly and prints what it measured"
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use dra::corpus::{CachedIndex, Corpus, LoadOptions};
use dra::embed::store::VectorStore;
use serde_json::Value;

struct Pair {
    set: String,
    gold: &'static str,
    id: String,
    question: String,
    pages: Vec<String>,
}

const K: usize = 10;

/// BM25 alone; fused with dense similarity over BM25's best passages (a
/// first run); fused over every passage (after `dra index`).
const RANKERS: &[&str] = &["bm25", "hybrid", "full"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let filter = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_default();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut by_corpus: BTreeMap<PathBuf, Vec<Pair>> = BTreeMap::new();
    for (gold, dir, list) in [
        ("realdocs", "tests/gold/realdocs", "cases"),
        ("held-out", "tests/gold/retrieval", "pairs"),
    ] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|e| e == "json")
                    && !p.to_string_lossy().ends_with(".gold.json")
            })
            .collect();
        files.sort();
        for f in files {
            let d: Value = serde_json::from_str(&std::fs::read_to_string(&f)?)?;
            let corpus = PathBuf::from(d["corpus"].as_str().unwrap_or_default());
            if !corpus.is_dir() {
                eprintln!(
                    "skipped {}: {} is missing: apt-get install {}",
                    f.display(),
                    corpus.display(),
                    d["package"].as_str().unwrap_or("?")
                );
                continue;
            }
            let set = f
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .split('.')
                .next()
                .unwrap_or_default()
                .to_string();
            for c in d[list].as_array().into_iter().flatten() {
                let id = c["id"].as_str().unwrap_or_default().to_string();
                if !id.contains(&filter) {
                    continue;
                }
                let pages = c["pages"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(|p| {
                        let p = p.split(' ').next().unwrap_or(p);
                        p.split('#').next().unwrap_or(p).to_string()
                    })
                    .collect();
                by_corpus.entry(corpus.clone()).or_default().push(Pair {
                    set: set.clone(),
                    gold,
                    id,
                    question: c["question"].as_str().unwrap_or_default().to_string(),
                    pages,
                });
            }
        }
    }

    // (gold, set, ranker, query form) -> (pairs, hits@1, hits@5, hits@10, reciprocal ranks)
    let mut tally: BTreeMap<(String, String, &str, &str), [f64; 5]> = BTreeMap::new();
    let embedder: Option<std::sync::Arc<dyn dra::embed::Embedder>> =
        match std::env::var_os(dra::embed::MODEL_KEY) {
            Some(dir) => Some(dra::embed::load(Path::new(&dir))?),
            None => {
                eprintln!("{} is not set: BM25 only", dra::embed::MODEL_KEY);
                None
            }
        };
    let mut misses: Vec<String> = Vec::new();
    // The corpus indexes, kept between bench runs (a first run builds them).
    let cache_root = std::env::var_os("DRA_BENCH_CACHE")
        .map(PathBuf::from)
        .or_else(dra::corpus::cache_root)
        .ok_or("no cache directory: set DRA_BENCH_CACHE")?;
    for (dir, pairs) in &by_corpus {
        let started = Instant::now();
        let cache = CachedIndex::for_folder(&cache_root, dir);
        let (mut corpus, refreshed) = Corpus::open_cached(dir, &cache, &LoadOptions::default())?;
        println!(
            "{}: {} documents ({} files read) ready in {:.2} s",
            dir.display(),
            corpus.len(),
            refreshed.added + refreshed.changed,
            started.elapsed().as_secs_f64()
        );
        let prefix = format!(
            "file://{}/",
            dir.display().to_string().trim_end_matches('/')
        );
        let only = std::env::var("DRA_BENCH_RANKERS").unwrap_or_default();
        for &ranker in RANKERS {
            if !only.is_empty() && !only.split(',').any(|r| r == ranker) {
                continue;
            }
            if ranker != "bm25" {
                let Some(model) = &embedder else { continue };
                let id = model.fingerprint().to_string();
                let store = if ranker == "hybrid" {
                    // Vectors only for the passages BM25 finds, as a first run has.
                    VectorStore::in_memory(&id, model.dim())
                } else {
                    // Every passage embedded (`dra index`), kept between bench runs.
                    let file = dra::embed::store::path_for(dir, &id).unwrap();
                    VectorStore::open(&file, &id, model.dim())
                };
                corpus.set_embedder(model.clone(), store)?;
                if ranker == "full" {
                    let (all, before) = corpus.dense_coverage().unwrap_or_default();
                    let started = Instant::now();
                    corpus.embed_all(32, &mut |_, _| {})?;
                    let secs = started.elapsed().as_secs_f64();
                    println!(
                        "  embedded {} of {all} passages in {secs:.1} s ({:.1} passages/s)",
                        all - before,
                        (all - before) as f64 / secs.max(1e-9)
                    );
                }
            }
            let started = Instant::now();
            let mut searches = 0usize;
            for p in pairs {
                for (form, query) in [
                    (
                        "first query",
                        dra::question::search_query(&p.question, None, None),
                    ),
                    ("as typed", p.question.clone()),
                ] {
                    let hits = corpus.search(&query, K)?;
                    searches += 1;
                    let rank = hits.iter().position(|h| {
                        let url = corpus.document(h.doc).map(|d| d.url).unwrap_or_default();
                        let rel = url.strip_prefix(&prefix).unwrap_or(&url);
                        p.pages.iter().any(|g| g == rel)
                    });
                    let t = tally
                        .entry((p.gold.to_string(), p.set.clone(), ranker, form))
                        .or_default();
                    t[0] += 1.0;
                    if let Some(r) = rank {
                        t[1] += f64::from(u8::from(r < 1));
                        t[2] += f64::from(u8::from(r < 5));
                        t[3] += 1.0;
                        t[4] += 1.0 / (r as f64 + 1.0);
                    }
                    if form == "first query" && rank.is_none_or(|r| r >= 5) {
                        let top: Vec<String> = hits
                            .iter()
                            .take(3)
                            .map(|h| {
                                let url = corpus.document(h.doc).map(|d| d.url).unwrap_or_default();
                                url.strip_prefix(&prefix).unwrap_or(&url).to_string()
                            })
                            .collect();
                        misses.push(format!(
                            "  {:<28} rank {:<4} {query:?} -> {}",
                            p.id,
                            rank.map_or("-".to_string(), |r| (r + 1).to_string()),
                            top.join(", ")
                        ));
                    }
                }
            }
            println!(
                "  {searches} searches in {:.1} ms each",
                started.elapsed().as_secs_f64() * 1000.0 / searches.max(1) as f64
            );
        }
    }

    println!(
        "\n{:<10} {:<12} {:<7} {:<12} {:>5} {:>6} {:>6} {:>6} {:>6}",
        "gold", "set", "ranker", "query", "pairs", "R@1", "R@5", "R@10", "MRR"
    );
    let mut totals: BTreeMap<(String, &str, &str), [f64; 5]> = BTreeMap::new();
    for ((gold, set, ranker, form), t) in &tally {
        row(gold, set, ranker, form, t);
        let s = totals.entry((gold.clone(), ranker, form)).or_default();
        for (a, b) in s.iter_mut().zip(t) {
            *a += b;
        }
    }
    for ((gold, ranker, form), t) in &totals {
        row(gold, "all", ranker, form, t);
    }
    println!("\nfirst-query misses (not in the top 5; top 3 shown):");
    for m in misses {
        println!("{m}");
    }
    Ok(())
}

fn row(gold: &str, set: &str, ranker: &str, form: &str, t: &[f64; 5]) {
    let n = t[0].max(1.0);
    println!(
        "{gold:<10} {set:<12} {ranker:<7} {form:<12} {:>5} {:>5.0}% {:>5.0}% {:>5.0}% {:>6.3}",
        t[0],
        100.0 * t[1] / n,
        100.0 * t[2] / n,
        100.0 * t[3] / n,
        t[4] / n
    );
}
