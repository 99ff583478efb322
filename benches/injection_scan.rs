//! The injection scan's cost per page: every page of the realworld,
//! benign_ai and redteam corpora cleaned (clean_html, which now also
//! collects attribute, metadata, link and code channels) and scanned
//! (normalised views of every channel through one RegexSet). Reports the
//! mean time per page for cleaning and for the scan alone.
//!
//!   cargo bench --bench injection_scan
//!
//! Not a test: it measures and prints.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark fails loudly and prints what it measured"
)]

use std::path::Path;
use std::time::Instant;

use dra::evidence::{clean, injection};

const ROUNDS: usize = 20;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpora");
    let mut pages = Vec::new();
    for dir in ["realworld", "benign_ai", "redteam"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "html") {
                let bytes = std::fs::read(&path).unwrap();
                pages.push(String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
    let bytes: usize = pages.iter().map(String::len).sum();
    // Warm the lazily compiled patterns.
    let _ = injection::scan_text("warm up");
    let t = Instant::now();
    let mut cleaned = Vec::new();
    for _ in 0..ROUNDS {
        cleaned = pages
            .iter()
            .map(|p| clean::clean_html(p))
            .collect::<Vec<_>>();
    }
    let clean_per_page = t.elapsed() / (ROUNDS * pages.len()) as u32;
    let t = Instant::now();
    let mut hits = 0;
    for _ in 0..ROUNDS {
        hits = cleaned
            .iter()
            .filter(|c| !injection::scan_page(c).is_empty())
            .count();
    }
    let scan_per_page = t.elapsed() / (ROUNDS * pages.len()) as u32;
    println!(
        "{} pages, {:.1} KB mean; clean_html {:?}/page; scan_page {:?}/page; {hits} pages with hits",
        pages.len(),
        bytes as f64 / pages.len() as f64 / 1024.0,
        clean_per_page,
        scan_per_page
    );
}
