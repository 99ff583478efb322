//! Corpus loader throughput: a generated folder of 10,000 files (Markdown,
//! text and HTML with JSON-LD, in 100 subfolders) of which 1% are bad
//! (binary files named .txt, corrupt and empty PDFs, Latin-1 text, broken
//! symlinks), loaded with the default caps; then indexed as `dra ask
//! --corpus` does. Prints wall time and peak memory (VmHWM). Not a test.
//!   usage: cargo bench --bench corpus_load [-- FILES]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark fails loudly and prints what it measured"
)]

use std::path::Path;
use std::time::Instant;

use dra::corpus::{Corpus, LoadOptions, load};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let dir = tempfile::tempdir()?;
    let bad = generate(dir.path(), files)?;
    let baseline = peak_rss_kib();

    let started = Instant::now();
    let loaded = load(dir.path(), &LoadOptions::default())?;
    let load_s = started.elapsed().as_secs_f64();
    let after_load = peak_rss_kib();
    let docs = loaded.docs.len();
    let warnings = loaded.warnings.len();
    drop(loaded);

    let started = Instant::now();
    let corpus = Corpus::load(dir.path(), &LoadOptions::default())?;
    let total_s = started.elapsed().as_secs_f64();
    let after_index = peak_rss_kib();

    println!(
        "corpus loader: {files} files ({bad} bad) in 100 folders, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "  load:          {load_s:.2} s ({:.0} files/s), {docs} documents, {warnings} warnings",
        files as f64 / load_s
    );
    println!(
        "  load + index:  {total_s:.2} s, {} documents",
        corpus.len()
    );
    println!(
        "  peak RSS MiB:  before {:.1}, after load {:.1}, after load + index {:.1}",
        baseline / 1024.0,
        after_load / 1024.0,
        after_index / 1024.0
    );
    Ok(())
}

/// Writes `n` files; returns how many are bad (1%).
fn generate(root: &Path, n: usize) -> std::io::Result<usize> {
    let mut bad = 0;
    for i in 0..n {
        let sub = root.join(format!("d{:03}", i % 100));
        std::fs::create_dir_all(&sub)?;
        let topic = ["pricing", "leadership", "funding", "outages", "reviews"][i % 5];
        let para = format!(
            "Company {i} reported on its {topic} in 2025. The figure for quarter {} was {} units, up from {} a year earlier, according to the filing. ",
            i % 4 + 1,
            1000 + i,
            900 + i
        )
        .repeat(8);
        if i % 100 == 7 {
            bad += 1;
            match (i / 100) % 5 {
                0 => std::fs::write(
                    sub.join(format!("f{i}.txt")),
                    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
                )?,
                1 => std::fs::write(
                    sub.join(format!("f{i}.pdf")),
                    b"%PDF-1.4\n1 0 obj << >> garbage",
                )?,
                2 => std::fs::write(sub.join(format!("f{i}.pdf")), b"")?,
                3 => {
                    let mut latin = b"Caf\xe9 cr\xe8me report. ".to_vec();
                    latin.extend_from_slice(para.as_bytes());
                    std::fs::write(sub.join(format!("f{i}.txt")), latin)?
                }
                _ => {
                    #[cfg(unix)]
                    std::os::unix::fs::symlink("missing.md", sub.join(format!("f{i}.md")))?;
                    #[cfg(not(unix))]
                    std::fs::write(sub.join(format!("f{i}.txt")), b"\0\0")?;
                }
            }
            continue;
        }
        match i % 3 {
            0 => std::fs::write(
                sub.join(format!("f{i}.md")),
                format!(
                    "---\ntitle: Company {i} {topic}\ndate: 2025-03-{:02}\nauthor: Writer {i}\ntags: [a, b]\n---\n# Company {i}\n\n{para}\n",
                    i % 28 + 1
                ),
            )?,
            1 => std::fs::write(
                sub.join(format!("f{i}.txt")),
                format!("Company {i} {topic}\n\n{para}\n"),
            )?,
            _ => std::fs::write(
                sub.join(format!("f{i}.html")),
                format!(
                    "<!doctype html><html><head><title>Company {i} {topic}</title><link rel=\"canonical\" href=\"https://news{}.example/{i}\"><script type=\"application/ld+json\">{{\"@graph\":[{{\"@type\":\"NewsArticle\",\"datePublished\":\"2025-04-{:02}T08:00:00Z\",\"author\":{{\"name\":\"Reporter {i}\"}},\"publisher\":{{\"name\":\"News {}\"}}}}]}}</script></head><body><nav><a href=\"/\">Home</a></nav><div class=\"ad\">Advert</div><article><h1>Company {i}</h1><p>{para}</p></article><footer>Footer</footer></body></html>",
                    i % 7,
                    i % 28 + 1,
                    i % 7
                ),
            )?,
        }
    }
    Ok(bad)
}

/// Peak resident memory of this process so far, in KiB (Linux).
fn peak_rss_kib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0.0)
}
