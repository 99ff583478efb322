//! Copy detection and merging at scale: 1,000 to 10,000 synthetic pages of
//! 300-800 words (Zipf-distributed vocabulary, paragraphs), with a known
//! share of word-for-word copies under different page chrome and of
//! near-copies (0.5% of words changed at random). Reports wall time, peak
//! memory, detection quality against the planted copies, and how the cost
//! grows from 1,000 to 10,000 pages; then how detection of near-copies
//! falls as more words are edited (the copy thresholds at work).
//!
//!   cargo bench --bench dedup_merge            (all sizes)
//!   cargo bench --bench dedup_merge -- 1000    (chosen sizes)
//!
//! Not a test: it measures and prints.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark fails loudly and prints what it measured"
)]

use std::collections::HashMap;
use std::time::{Duration, Instant};

use dra::evidence::dedup::{self, DocForDedup};
use dra::evidence::merge::{self, MergeOptions};
use dra::evidence::{Claim, EvidenceItem, Field, Scores, SourceRef, SourceType, score};

const SIZES: &[usize] = &[1_000, 2_000, 5_000, 10_000];
const VOCABULARY: usize = 20_000;
/// Share of pages that are exact copies (new chrome) of an earlier page.
const EXACT_COPIES: f64 = 0.15;
/// Share of pages that are near-copies (edited words, new chrome).
const NEAR_COPIES: f64 = 0.10;
const EDIT_RATE: f64 = 0.005;
/// Edit rates for the sensitivity sweep.
const SWEEP: &[f64] = &[0.0, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05];
const CLAIMS_PER_PAGE: usize = 3;
const RUNS: usize = 3;

/// splitmix64: small, fast, reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

struct Vocabulary {
    words: Vec<String>,
    /// Cumulative Zipf weights for sampling by binary search.
    cumulative: Vec<f64>,
}

impl Vocabulary {
    fn new(rng: &mut Rng) -> Vocabulary {
        const SYLLABLES: &[&str] = &[
            "ka", "lo", "mi", "ren", "tas", "vu", "del", "or", "pa", "shi", "ne", "ta", "gor",
            "li", "mun", "sa", "ve", "rio", "dan", "ek", "fi", "har", "jo", "qua", "zel", "bri",
            "cu", "nom", "pel", "tri",
        ];
        let mut words = Vec::with_capacity(VOCABULARY);
        let mut seen = std::collections::HashSet::new();
        while words.len() < VOCABULARY {
            let n = 1 + rng.below(4);
            let w: String = (0..n)
                .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
                .collect();
            if seen.insert(w.clone()) {
                words.push(w);
            }
        }
        let mut total = 0.0;
        let cumulative = (1..=VOCABULARY)
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect();
        Vocabulary { words, cumulative }
    }

    fn word(&self, rng: &mut Rng) -> &str {
        let total = self.cumulative.last().copied().unwrap_or(1.0);
        let x = rng.unit() * total;
        let i = self.cumulative.partition_point(|&c| c < x);
        &self.words[i.min(self.words.len() - 1)]
    }

    fn paragraph(&self, rng: &mut Rng, words: usize) -> String {
        let mut p = String::with_capacity(words * 7);
        for i in 0..words {
            if i > 0 {
                p.push(' ');
            }
            p.push_str(self.word(rng));
        }
        p.push('.');
        p
    }
}

struct Corpus {
    urls: Vec<String>,
    texts: Vec<String>,
    published: Vec<String>,
    authority: Vec<f64>,
    source_type: Vec<SourceType>,
    /// For planted copies: the page they copy.
    copy_of: Vec<Option<usize>>,
    /// Whether a planted copy is a near-copy (edited words).
    near: Vec<bool>,
    words: usize,
}

const TYPES: &[SourceType] = &[
    SourceType::Regulator,
    SourceType::Official,
    SourceType::News,
    SourceType::News,
    SourceType::PressRelease,
    SourceType::Review,
    SourceType::Forum,
    SourceType::Blog,
    SourceType::Other,
];

fn chrome(vocab: &Vocabulary, rng: &mut Rng) -> (String, String) {
    let top = format!(
        "Home | {} | {} | {}",
        vocab.word(rng),
        vocab.word(rng),
        vocab.word(rng)
    );
    let n = 10 + rng.below(30);
    (top, vocab.paragraph(rng, n))
}

fn generate(n: usize, seed: u64, edit_rate: f64) -> Corpus {
    let mut rng = Rng(seed);
    let vocab = Vocabulary::new(&mut rng);
    let mut c = Corpus {
        urls: Vec::with_capacity(n),
        texts: Vec::with_capacity(n),
        published: Vec::with_capacity(n),
        authority: Vec::with_capacity(n),
        source_type: Vec::with_capacity(n),
        copy_of: Vec::with_capacity(n),
        near: Vec::with_capacity(n),
        words: 0,
    };
    let mut bodies: Vec<String> = Vec::with_capacity(n);
    for i in 0..n {
        let roll = rng.unit();
        let source = if i > 10 && roll < EXACT_COPIES + NEAR_COPIES {
            // Copy an earlier page that is itself an original.
            let mut s = rng.below(i);
            while c.copy_of[s].is_some() {
                s = rng.below(i);
            }
            Some(s)
        } else {
            None
        };
        let body = match source {
            Some(s) if roll < EXACT_COPIES => bodies[s].clone(),
            Some(s) => {
                // Near-copy: the same body with some words replaced.
                let mut out = String::with_capacity(bodies[s].len());
                for (k, paragraph) in bodies[s].split("\n\n").enumerate() {
                    if k > 0 {
                        out.push_str("\n\n");
                    }
                    let edited: Vec<&str> = paragraph
                        .split(' ')
                        .map(|w| {
                            if rng.unit() < edit_rate {
                                vocab.word(&mut rng)
                            } else {
                                w
                            }
                        })
                        .collect();
                    out.push_str(&edited.join(" "));
                }
                out
            }
            None => {
                let target = 300 + rng.below(501);
                let mut words = 0;
                let mut paragraphs = Vec::new();
                while words < target {
                    let len = (40 + rng.below(81)).min(target - words).max(5);
                    paragraphs.push(vocab.paragraph(&mut rng, len));
                    words += len;
                }
                paragraphs.join("\n\n")
            }
        };
        let (top, bottom) = chrome(&vocab, &mut rng);
        let text = format!("{top}\n\n{body}\n\n{bottom}");
        c.words += text.split_whitespace().count();
        let t = TYPES[rng.below(TYPES.len())];
        c.urls.push(format!(
            "https://site{}.example/page/{i}",
            rng.below(n / 4 + 1)
        ));
        c.published.push(format!(
            "{}-{:02}-{:02}",
            2022 + rng.below(5),
            1 + rng.below(12),
            1 + rng.below(28)
        ));
        c.authority.push(dra::evidence::fields::base_authority(t));
        c.source_type.push(t);
        c.copy_of.push(source);
        c.near.push(source.is_some() && roll >= EXACT_COPIES);
        c.texts.push(text);
        bodies.push(body);
    }
    c
}

/// Claims for the pages: a few per page over all fields, values drawn from
/// small pools (short values and sentences), scored as the engine scores.
fn evidence(c: &Corpus, seed: u64, today: chrono::NaiveDate) -> Vec<EvidenceItem> {
    let mut rng = Rng(seed ^ 0xabcd);
    let pool = |field: Field, k: usize| -> String {
        match (field, k % 4) {
            (Field::Ceo, 0) => "Ananya Rao".into(),
            (Field::Ceo, 1) => "Rohit Mehra".into(),
            (Field::Ceo, 2) => "Ms. Ananya Rao, CEO".into(),
            (Field::Ceo, _) => {
                "Ananya Rao has been the chief executive of Example Corp since 1 January 2026."
                    .into()
            }
            (Field::RegulatoryStatus, 0) => "final authorisation".into(),
            (Field::RegulatoryStatus, 1) => "licence revoked".into(),
            (Field::RegulatoryStatus, 2) => "in-principle authorisation".into(),
            (Field::RegulatoryStatus, _) => {
                "The licence was suspended in March 2024 and reinstated on 2 June 2024.".into()
            }
            (Field::Funding, 0) => "Series B, $40M".into(),
            (Field::Funding, 1) => "Series A, $10M".into(),
            (Field::Funding, 2) => "$40 million Series B".into(),
            (Field::Funding, _) => {
                "Example Corp raised $40 million in a Series B round led by Fund Partners.".into()
            }
            (Field::Pricing, k) => format!("{}.{}% per transaction", 1 + k % 2, k),
            (f, k) => format!("{} value {}", f.as_str(), k % 3),
        }
    };
    let mut items = Vec::with_capacity(c.urls.len() * CLAIMS_PER_PAGE);
    for i in 0..c.urls.len() {
        for _ in 0..CLAIMS_PER_PAGE {
            let field = Field::ALL[rng.below(Field::ALL.len())];
            let value = pool(field, rng.below(4));
            let item = EvidenceItem {
                id: format!("e{:06}", items.len()),
                origin: "bench".into(),
                claim: Claim {
                    field: field.as_str().into(),
                    snippet: format!("The page states: {value}"),
                    value,
                    event_date: None,
                },
                source: SourceRef {
                    url: c.urls[i].clone(),
                    domain: dra::document::host_of(&c.urls[i]),
                    source_type: c.source_type[i],
                    published: Some(c.published[i].clone()),
                    updated: None,
                    retrieved: today.to_string(),
                },
                scores: Scores::from_identity(0.6 + 0.4 * rng.unit()),
                accepted: rng.unit() < 0.95,
                flags: vec![],
            };
            let scores = score::score_item(&item, today);
            items.push(EvidenceItem { scores, ..item });
        }
    }
    items
}

fn status_kb(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with(key))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Resets the kernel's peak-RSS mark to the current RSS (Linux 4.0+).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

struct Row {
    pages: usize,
    words: usize,
    planted: usize,
    found: usize,
    false_merges: usize,
    candidates: usize,
    dedup: Duration,
    merge: Duration,
    items: usize,
    fields: usize,
    peak_growth_kb: Option<u64>,
    peak_kb: Option<u64>,
}

fn run(n: usize) -> Row {
    let seed = 0x00d7_a5ee_d000 + n as u64;
    let corpus = generate(n, seed, EDIT_RATE);
    let today = score::parse_date("2026-11-29").unwrap_or_default();
    let docs: Vec<DocForDedup> = (0..n)
        .map(|i| DocForDedup {
            url: &corpus.urls[i],
            text: &corpus.texts[i],
            published: Some(&corpus.published[i]),
            authority: corpus.authority[i],
        })
        .collect();
    let items = evidence(&corpus, seed, today);

    // Peak memory of one dedup + merge, over what the inputs already hold.
    let peak_reset = reset_peak();
    let rss_before = status_kb("VmRSS:");
    let copies = dedup::find_copies(&docs);
    let opts = MergeOptions::new(today, Some("Example Corp"));
    let merged = merge::merge(&items, &copies.origin_of, &opts);
    let peak = status_kb("VmHWM:");
    let peak_growth_kb = match (peak_reset, peak, rss_before) {
        (true, Some(p), Some(b)) => Some(p.saturating_sub(b)),
        _ => None,
    };

    let mut dedup_times = vec![];
    let mut merge_times = vec![];
    for _ in 0..RUNS {
        let t = Instant::now();
        let c = dedup::find_copies(&docs);
        dedup_times.push(t.elapsed());
        let t = Instant::now();
        let m = merge::merge(&items, &c.origin_of, &opts);
        merge_times.push(t.elapsed());
        std::hint::black_box((c, m));
    }

    // Detection against the planted copies.
    let planted = corpus.copy_of.iter().filter(|c| c.is_some()).count();
    let origin = |i: usize| copies.origin(&corpus.urls[i]).to_string();
    let found = (0..n)
        .filter(|&i| corpus.copy_of[i].is_some_and(|s| origin(i) == origin(s)))
        .count();
    let (mut exact, mut exact_found, mut near, mut near_found) = (0, 0, 0, 0);
    let (mut below_threshold, mut lsh_missed) = (0, 0);
    let mut missed_overlap: Vec<(f64, f64)> = Vec::new();
    for i in 0..n {
        let Some(s) = corpus.copy_of[i] else { continue };
        let hit = origin(i) == origin(s);
        if corpus.near[i] {
            near += 1;
            near_found += usize::from(hit);
        } else {
            exact += 1;
            exact_found += usize::from(hit);
        }
        if !hit {
            let (a, b) = (
                dedup::shingles(&corpus.texts[i]),
                dedup::shingles(&corpus.texts[s]),
            );
            let (copy, j, c) = dedup::is_copy(&a, &b);
            if copy {
                lsh_missed += 1;
            } else {
                below_threshold += 1;
                missed_overlap.push((j, c));
            }
        }
    }
    let worst = missed_overlap
        .iter()
        .fold((1.0f64, 1.0f64), |(j, c), &(x, y)| (j.min(x), c.min(y)));
    eprintln!(
        "  {n} pages: exact copies found {exact_found}/{exact}, near-copies found {near_found}/{near}; missed: {lsh_missed} by LSH, {below_threshold} below the copy thresholds (lowest Jaccard {:.2}, containment {:.2})",
        worst.0, worst.1
    );
    // Originals that ended up grouped with another original.
    let mut group_originals: HashMap<String, usize> = HashMap::new();
    for i in 0..n {
        if corpus.copy_of[i].is_none() {
            *group_originals.entry(origin(i)).or_default() += 1;
        }
    }
    let false_merges = group_originals.values().map(|&k| k - 1).sum();
    Row {
        pages: n,
        words: corpus.words,
        planted,
        found,
        false_merges,
        candidates: copies.candidates_checked,
        dedup: median(dedup_times),
        merge: median(merge_times),
        items: items.len(),
        fields: merged.len(),
        peak_growth_kb,
        peak_kb: peak,
    }
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        SIZES.to_vec()
    } else {
        sizes
    };
    println!(
        "dedup_merge: MinHash {} slots, LSH {} bands; pages 300-800 words; {:.0}% exact copies + {:.0}% near-copies ({:.1}% words edited); {} claims/page; median of {RUNS} runs",
        dedup::SLOTS,
        dedup::BANDS,
        EXACT_COPIES * 100.0,
        NEAR_COPIES * 100.0,
        EDIT_RATE * 100.0,
        CLAIMS_PER_PAGE
    );
    println!(
        "{:>7} {:>10} {:>8} {:>13} {:>7} {:>11} {:>9} {:>9} {:>8} {:>9} {:>10} {:>9}",
        "pages",
        "words",
        "copies",
        "found",
        "false",
        "candidates",
        "dedup ms",
        "us/page",
        "claims",
        "merge ms",
        "peak +MB",
        "VmHWM MB"
    );
    let mut rows = Vec::new();
    for &n in &sizes {
        let r = run(n);
        println!(
            "{:>7} {:>10} {:>8} {:>7} ({:>3.0}%) {:>7} {:>11} {:>9.1} {:>9.1} {:>8} {:>9.1} {:>10} {:>9}",
            r.pages,
            r.words,
            r.planted,
            r.found,
            100.0 * r.found as f64 / r.planted.max(1) as f64,
            r.false_merges,
            r.candidates,
            r.dedup.as_secs_f64() * 1e3,
            r.dedup.as_secs_f64() * 1e6 / r.pages as f64,
            r.items,
            r.merge.as_secs_f64() * 1e3,
            r.peak_growth_kb
                .map(|k| format!("{:.1}", k as f64 / 1024.0))
                .unwrap_or_else(|| "n/a".into()),
            r.peak_kb
                .map(|k| format!("{:.1}", k as f64 / 1024.0))
                .unwrap_or_else(|| "n/a".into()),
        );
        assert!(r.fields > 0);
        rows.push(r);
    }
    println!(
        "near-copy detection by share of words edited at random (1000 pages, {:.0}% near-copies):",
        NEAR_COPIES * 100.0
    );
    for &rate in SWEEP {
        let corpus = generate(1000, 0x5eed, rate);
        let docs: Vec<DocForDedup> = (0..corpus.urls.len())
            .map(|i| DocForDedup {
                url: &corpus.urls[i],
                text: &corpus.texts[i],
                published: Some(&corpus.published[i]),
                authority: corpus.authority[i],
            })
            .collect();
        let copies = dedup::find_copies(&docs);
        let origin = |i: usize| copies.origin(&corpus.urls[i]).to_string();
        let (mut near, mut found) = (0, 0);
        for i in 0..docs.len() {
            if let Some(s) = corpus.copy_of[i]
                && corpus.near[i]
            {
                near += 1;
                found += usize::from(origin(i) == origin(s));
            }
        }
        println!(
            "  {:>4.1}% edited: {found}/{near} found ({:.0}%)",
            rate * 100.0,
            100.0 * found as f64 / near.max(1) as f64
        );
    }
    if let (Some(first), Some(last)) = (rows.first(), rows.last())
        && last.pages > first.pages
    {
        let scale = last.pages as f64 / first.pages as f64;
        let all_pairs = |n: usize| n as f64 * (n as f64 - 1.0) / 2.0;
        println!(
            "growth {} -> {} pages (x{scale:.0}): dedup time x{:.1}, merge time x{:.1}; Jaccard checks {} of {:.0} all-pairs ({:.4}%)",
            first.pages,
            last.pages,
            last.dedup.as_secs_f64() / first.dedup.as_secs_f64(),
            last.merge.as_secs_f64() / first.merge.as_secs_f64(),
            last.candidates,
            all_pairs(last.pages),
            100.0 * last.candidates as f64 / all_pairs(last.pages),
        );
    }
}
