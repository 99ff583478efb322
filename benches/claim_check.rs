//! The claim check's cost per report: a report of 30 cited sentences (half
//! quotations, half paraphrases with numbers, dates and names) over 20
//! pages of the embedded PadmaPay corpus, at the corpus's own page sizes
//! (~2k characters) and padded to realistic web-page sizes (~15k and ~60k
//! characters). Reports the time to prepare the sources (once per report)
//! and to check every sentence, median of 25 runs.
//!
//!   cargo bench --bench claim_check
//!
//! Not a test: it measures and prints.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark fails loudly and prints what it measured"
)]

use std::time::{Duration, Instant};

use dra::evidence::{clean, sentences};
use dra::report::claim_check::{self, Library, SourceInput};

const PAGES: usize = 20;
const SENTENCES: usize = 30;
const RUNS: usize = 25;

struct Page {
    url: String,
    title: String,
    text: String,
}

fn corpus() -> Vec<Page> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/corpus/embedded/padmapay.json"
    );
    let raw = std::fs::read_to_string(path).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap_or_default();
    v["documents"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|d| {
            let content = d["content"].as_str().unwrap_or("");
            let text = if d["content_type"] == "text/html" {
                clean::clean_html(content).text
            } else {
                clean::clean_text(content).text
            };
            Page {
                url: d["url"].as_str().unwrap_or("").to_string(),
                title: d["title"].as_str().unwrap_or("").to_string(),
                text,
            }
        })
        .filter(|p| sentences::split(&p.text).len() >= 3)
        .take(PAGES)
        .collect()
}

/// Pads each page to about `chars` with text of the other pages (as real
/// pages carry navigation, related stories and comments).
fn padded(pages: &[Page], chars: usize) -> Vec<Page> {
    let filler: String = pages
        .iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    pages
        .iter()
        .map(|p| {
            let mut text = p.text.clone();
            while text.len() < chars {
                text.push('\n');
                text.push_str(&filler);
            }
            Page {
                url: p.url.clone(),
                title: p.title.clone(),
                text,
            }
        })
        .collect()
}

/// 30 cited sentences: even ones quote a sentence of a page, odd ones
/// restate one without quotation marks, minus its first word.
fn report(pages: &[Page]) -> String {
    let mut md = String::from(
        "# PadmaPay: research report\n\n**Question:** Is PadmaPay reliable?\n\n## Findings\n\n",
    );
    for i in 0..SENTENCES {
        let n = i % pages.len();
        let ss = sentences::split(&pages[n].text);
        let s = ss[(i / pages.len()) % ss.len()].trim_end_matches('.');
        if i % 2 == 0 {
            md.push_str(&format!(
                "- \"{s}\" [{}] (confidence 0.90, as of 2026-01-01)\n",
                n + 1
            ));
        } else {
            let rest = s.split_once(' ').map(|x| x.1).unwrap_or(s);
            md.push_str(&format!("Reportedly, {rest} [{}].\n", n + 1));
        }
    }
    md
}

fn library(pages: &[Page]) -> Library {
    let mut lib = Library::new();
    for (i, p) in pages.iter().enumerate() {
        lib.add(
            i + 1,
            &SourceInput {
                text: &p.text,
                title: &p.title,
                url: &p.url,
                dates: vec!["2025-06-01"],
                findings: vec![],
            },
        );
    }
    lib
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let base = corpus();
    println!(
        "claim_check: {} pages, {SENTENCES} cited sentences, median of {RUNS} runs",
        base.len()
    );
    println!(
        "{:>10} {:>12} {:>12} {:>12} {:>12} {:>10}",
        "page chars", "prepare ms", "check ms", "total ms", "us/sentence", "supported"
    );
    for target in [0usize, 15_000, 60_000] {
        let pages = if target == 0 {
            padded(&base, 0)
        } else {
            padded(&base, target)
        };
        let avg = pages.iter().map(|p| p.text.len()).sum::<usize>() / pages.len().max(1);
        let md = report(&pages);
        let (mut prep, mut chk) = (Vec::new(), Vec::new());
        let mut tally = (0, 0);
        for _ in 0..RUNS {
            let t = Instant::now();
            let lib = library(&pages);
            prep.push(t.elapsed());
            let t = Instant::now();
            let c = claim_check::check(&md, &lib);
            chk.push(t.elapsed());
            tally = (c.supported(), c.checked());
        }
        let (p, c) = (median(prep), median(chk));
        println!(
            "{:>10} {:>12.2} {:>12.3} {:>12.2} {:>12.1} {:>10}",
            avg,
            p.as_secs_f64() * 1e3,
            c.as_secs_f64() * 1e3,
            (p + c).as_secs_f64() * 1e3,
            c.as_secs_f64() * 1e6 / SENTENCES as f64,
            format!("{}/{}", tally.0, tally.1)
        );
    }
}
