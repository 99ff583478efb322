//! Copies: repetition is not corroboration. Pages whose 5-word shingles
//! overlap with Jaccard above [`COPY_THRESHOLD`] are one origin; the copy's
//! vote goes to the original.
//!
//! Page chrome (a wire site's navigation, disclaimer and "trending" list)
//! around a short release pulls Jaccard under the course's threshold: the
//! Halden wire copy scores 0.77 against its release. So a page is also a
//! copy when at least [`CONTAINMENT_THRESHOLD`] of the smaller page's
//! shingles are in the larger and the smaller is at least
//! [`MIN_SIZE_RATIO`] of the larger's size (a short statement quoted inside
//! a long article stays independent).
//!
//! All-pairs Jaccard is quadratic, so candidates come from MinHash
//! signatures (128 slots) bucketed by LSH bands (32 bands of 4 rows): two
//! pages land in one bucket with probability `1 - (1 - s^4)^32`, which is
//! above 0.999999 at similarity 0.8 and about 0.003 at 0.1. Each candidate
//! pair is then verified with the exact Jaccard of its shingle sets, so the
//! verdict is exact and only recall rests on the sketch.

use std::collections::{HashMap, HashSet};

use super::Page;
use super::score::parse_date;

/// Words per shingle.
pub const SHINGLE_WORDS: usize = 5;
/// MinHash slots per signature.
pub const SLOTS: usize = 128;
/// LSH bands; `SLOTS / BANDS` rows each.
pub const BANDS: usize = 32;
const ROWS: usize = SLOTS / BANDS;
/// Above this shingle Jaccard two pages are one origin.
pub const COPY_THRESHOLD: f64 = 0.8;
/// Above this share of the smaller page's shingles found in the larger,
/// two pages of comparable size are one origin.
pub const CONTAINMENT_THRESHOLD: f64 = 0.9;
/// The smaller page must be at least this share of the larger for
/// containment to count.
pub const MIN_SIZE_RATIO: f64 = 0.5;

/// What dedup needs to know about a page.
#[derive(Debug, Clone, Copy)]
pub struct DocForDedup<'a> {
    pub url: &'a str,
    /// Cleaned main text (page chrome mostly gone already).
    pub text: &'a str,
    /// `YYYY-MM-DD` (or anything [`parse_date`] reads).
    pub published: Option<&'a str>,
    /// Authority of the source, to pick the origin among same-day copies.
    pub authority: f64,
}

impl<'a> DocForDedup<'a> {
    pub fn from_page(page: &'a Page) -> DocForDedup<'a> {
        DocForDedup {
            url: &page.url,
            text: &page.text,
            published: page.published.as_deref().or(page.updated.as_deref()),
            authority: super::fields::base_authority(page.source_type),
        }
    }
}

/// Two pages found to be copies, with their exact shingle overlap.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CopyPair {
    pub a: String,
    pub b: String,
    pub jaccard: f64,
    /// Share of the smaller page's shingles found in the larger.
    pub containment: f64,
}

#[derive(Debug, Clone, Default)]
pub struct Copies {
    /// Every input url to its origin url (an origin maps to itself).
    pub origin_of: HashMap<String, String>,
    /// The verified pairs that joined two groups.
    pub pairs: Vec<CopyPair>,
    /// Candidate pairs the LSH proposed and Jaccard checked.
    pub candidates_checked: usize,
}

impl Copies {
    /// The origin of `url`, or `url` itself when it was not seen.
    pub fn origin<'s>(&'s self, url: &'s str) -> &'s str {
        self.origin_of.get(url).map(String::as_str).unwrap_or(url)
    }

    pub fn is_copy(&self, url: &str) -> bool {
        self.origin(url) != url
    }
}

/// Every url to its origin url: copies map to the earliest-published page of
/// their group (same day or undated: the most authoritative), origins and
/// unique pages to themselves.
pub fn origins(docs: &[DocForDedup]) -> HashMap<String, String> {
    find_copies(docs).origin_of
}

fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// splitmix64's finaliser: spreads every input bit over the output.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '$' || c == '%' || c == '.'
}

/// Hashes of the normalised words: lowercase runs of letters, digits, `$`,
/// `%` and `.` (the course's `[a-z0-9$%.]+`, widened to every script), with
/// sentence dots trimmed so "deal." and "deal" are one word.
fn word_hashes(text: &str) -> Vec<u64> {
    text.split(|c: char| !is_word_char(c))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty())
        .map(|w| {
            fnv1a(w.chars().flat_map(char::to_lowercase).flat_map(|c| {
                let mut buf = [0u8; 4];
                let n = c.encode_utf8(&mut buf).len();
                buf.into_iter().take(n)
            }))
        })
        .collect()
}

/// The sorted, deduplicated hashes of a text's 5-word shingles, taken
/// within each paragraph (blocks separated by a blank line): a shingle
/// spanning a navigation bar and a headline is layout, not content, and
/// such shingles kept a copy with different chrome from matching. Single
/// line breaks (hard-wrapped text) do not split. A paragraph shorter than
/// five words is one shingle; an empty text has none.
pub fn shingles(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let mut paragraph = String::new();
    for line in text.lines().chain(std::iter::once("")) {
        if line.trim().is_empty() {
            shingle_paragraph(&paragraph, &mut out);
            paragraph.clear();
        } else {
            paragraph.push_str(line);
            paragraph.push(' ');
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn shingle_paragraph(paragraph: &str, out: &mut Vec<u64>) {
    let words = word_hashes(paragraph);
    if words.is_empty() {
        return;
    }
    let k = SHINGLE_WORDS.min(words.len());
    out.extend(words.windows(k).map(|w| {
        mix(w.iter().fold(0u64, |h, &x| {
            (h.rotate_left(23) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        }))
    }));
}

/// Jaccard of two sorted, deduplicated sets; 0 when either is empty.
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let inter = intersection(a, b);
    inter as f64 / (a.len() + b.len() - inter) as f64
}

/// Share of the smaller set found in the larger; 0 when either is empty.
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    intersection(a, b) as f64 / a.len().min(b.len()) as f64
}

/// Whether two shingle sets are one origin; with the Jaccard and the
/// containment, for the record.
pub fn is_copy(a: &[u64], b: &[u64]) -> (bool, f64, f64) {
    let (j, c) = (jaccard(a, b), containment(a, b));
    let (small, large) = (a.len().min(b.len()), a.len().max(b.len()));
    let comparable = large > 0 && small as f64 / large as f64 >= MIN_SIZE_RATIO;
    (
        j > COPY_THRESHOLD || (comparable && c > CONTAINMENT_THRESHOLD),
        j,
        c,
    )
}

fn intersection(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    inter
}

/// The multiply-add constants of the 128 hash functions, fixed so runs are
/// reproducible.
fn coefficients() -> &'static [(u64, u64); SLOTS] {
    static COEFFS: std::sync::LazyLock<[(u64, u64); SLOTS]> = std::sync::LazyLock::new(|| {
        let mut state: u64 = 0x005e_ed0f_d1a5;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            mix(state)
        };
        std::array::from_fn(|_| (next() | 1, next()))
    });
    &COEFFS
}

/// MinHash signature: per slot, the minimum over the shingles of
/// `(a*x + b) >> 32`, the multiply-shift hash family.
pub fn signature(shingles: &[u64]) -> [u32; SLOTS] {
    let coeffs = coefficients();
    let mut sig = [u32::MAX; SLOTS];
    for &x in shingles {
        for (slot, &(a, b)) in sig.iter_mut().zip(coeffs.iter()) {
            let h = (a.wrapping_mul(x).wrapping_add(b) >> 32) as u32;
            if h < *slot {
                *slot = h;
            }
        }
    }
    sig
}

/// Share of equal slots: an unbiased estimate of the Jaccard.
pub fn estimate(a: &[u32; SLOTS], b: &[u32; SLOTS]) -> f64 {
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / SLOTS as f64
}

struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind {
            parent: (0..n as u32).collect(),
        }
    }

    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi as usize] = lo;
        }
    }
}

/// Finds the copies among `docs` and each page's origin.
pub fn find_copies(docs: &[DocForDedup]) -> Copies {
    let n = docs.len();
    // The same url twice is one page.
    let mut first_index: HashMap<&str, u32> = HashMap::with_capacity(n);
    let mut uf = UnionFind::new(n);
    for (i, d) in docs.iter().enumerate() {
        match first_index.get(d.url) {
            Some(&j) => uf.union(j, i as u32),
            None => {
                first_index.insert(d.url, i as u32);
            }
        }
    }

    // One pass: signatures only; shingle sets are rebuilt later for the
    // few pages that become candidates, which keeps memory near 512 bytes
    // a page.
    let mut sigs: Vec<[u32; SLOTS]> = Vec::with_capacity(n);
    let mut empty = vec![false; n];
    for (i, d) in docs.iter().enumerate() {
        let sh = shingles(d.text);
        empty[i] = sh.is_empty();
        sigs.push(signature(&sh));
    }

    let mut shingle_cache: HashMap<u32, Vec<u64>> = HashMap::new();
    let mut checked: HashSet<(u32, u32)> = HashSet::new();
    let mut pairs = Vec::new();
    let mut band: Vec<(u64, u32)> = Vec::with_capacity(n);
    for b in 0..BANDS {
        band.clear();
        for (i, sig) in sigs.iter().enumerate() {
            if empty[i] {
                continue;
            }
            let rows = &sig[b * ROWS..(b + 1) * ROWS];
            let key = rows.iter().fold(b as u64, |h, &r| mix(h ^ u64::from(r)));
            band.push((key, i as u32));
        }
        band.sort_unstable();
        let mut start = 0;
        while start < band.len() {
            let mut end = start + 1;
            while end < band.len() && band[end].0 == band[start].0 {
                end += 1;
            }
            for x in start..end {
                for y in x + 1..end {
                    let (i, j) = (band[x].1, band[y].1);
                    if uf.find(i) == uf.find(j) || !checked.insert((i, j)) {
                        continue;
                    }
                    for k in [i, j] {
                        shingle_cache
                            .entry(k)
                            .or_insert_with(|| shingles(docs[k as usize].text));
                    }
                    let (copy, jac, cont) = match (shingle_cache.get(&i), shingle_cache.get(&j)) {
                        (Some(a), Some(b)) => is_copy(a, b),
                        _ => (false, 0.0, 0.0),
                    };
                    if copy {
                        uf.union(i, j);
                        pairs.push(CopyPair {
                            a: docs[i as usize].url.to_string(),
                            b: docs[j as usize].url.to_string(),
                            jaccard: jac,
                            containment: cont,
                        });
                    }
                }
            }
            start = end;
        }
    }

    // Each group's origin: earliest published; same day or undated, the
    // most authoritative; then the smallest url, so the answer does not
    // depend on input order.
    let mut groups: HashMap<u32, Vec<u32>> = HashMap::new();
    for i in 0..n as u32 {
        let root = uf.find(i);
        groups.entry(root).or_default().push(i);
    }
    let mut origin_of = HashMap::with_capacity(n);
    for members in groups.values() {
        let origin = members
            .iter()
            .map(|&i| &docs[i as usize])
            .min_by(|a, b| {
                let da = a.published.and_then(parse_date);
                let db = b.published.and_then(parse_date);
                let by_date = match (da, db) {
                    (Some(x), Some(y)) => x.cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    (None, None) => std::cmp::Ordering::Equal,
                };
                by_date
                    .then(b.authority.total_cmp(&a.authority))
                    .then(a.url.cmp(b.url))
            })
            .map(|d| d.url.to_string())
            .unwrap_or_default();
        for &i in members {
            origin_of.insert(docs[i as usize].url.to_string(), origin.clone());
        }
    }
    Copies {
        origin_of,
        pairs,
        candidates_checked: checked.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARTICLE: &str = "Halden Freight, a cold-chain logistics provider headquartered in Nagpur, today announced that it has raised 120 crore rupees in a funding round led by Deccan Growth Partners. Existing shareholders also took part in the round. The company said it will use the money to add refrigerated trucks, open a fifth warehouse in central India and upgrade the temperature monitoring systems across its network. Suresh Kulkarni, founder and managing director, said the investment would help the company serve dairies, pharmaceutical distributors and fruit exporters across the region. The round is the largest investment so far in a logistics company from the Vidarbha region, according to the company.";

    const INDEPENDENT: &str = "Nagpur-based cold-chain operator Halden Freight has raised 120 crore rupees in a round led by Deccan Growth Partners, the largest investment so far in a logistics company from the Vidarbha region. The deal values the company at a little under 700 crore, according to two people familiar with the transaction who asked not to be named because the valuation is private. Analysts said refrigerated logistics had drawn growing interest from investors as food and medicine supply chains modernise. Kulkarni told this newspaper that the company had turned down two offers from larger national logistics groups that wanted a majority stake.";

    fn doc<'a>(
        url: &'a str,
        text: &'a str,
        published: Option<&'a str>,
        authority: f64,
    ) -> DocForDedup<'a> {
        DocForDedup {
            url,
            text,
            published,
            authority,
        }
    }

    #[test]
    fn shingles_follow_the_course() {
        assert_eq!(shingles("one two three four five six").len(), 2);
        assert_eq!(shingles("one two").len(), 1);
        // Paragraphs shingle apart; hard wraps do not split.
        assert_eq!(shingles("one two three\n\nfour five six").len(), 2);
        assert_eq!(
            shingles("one two three\nfour five six"),
            shingles("one two three four five six")
        );
        assert!(shingles("  ... ").is_empty());
        // Case, punctuation and sentence dots do not matter; decimals do.
        assert_eq!(
            shingles("Fees are 1.9% for Cards."),
            shingles("fees are 1.9% for cards")
        );
        assert_ne!(
            shingles("fees are 1.9% for cards"),
            shingles("fees are 1.8% for cards")
        );
        let a = shingles(ARTICLE);
        assert_eq!(jaccard(&a, &a), 1.0);
        assert_eq!(jaccard(&a, &[]), 0.0);
    }

    #[test]
    fn minhash_estimates_jaccard() {
        let a = shingles(ARTICLE);
        let half: String = ARTICLE
            .split_whitespace()
            .take(60)
            .collect::<Vec<_>>()
            .join(" ");
        let b = shingles(&half);
        let exact = jaccard(&a, &b);
        let est = estimate(&signature(&a), &signature(&b));
        assert!((exact - est).abs() < 0.15, "exact {exact} estimate {est}");
        assert_eq!(estimate(&signature(&a), &signature(&a)), 1.0);
    }

    fn html(chrome_top: &str, body: &str, chrome_bottom: &str) -> String {
        let paragraphs: String = body.split(". ").map(|s| format!("<p>{s}.</p>")).collect();
        format!(
            "<html><head><title>Halden Freight raises 120 crore</title></head><body><nav>{chrome_top}</nav><article><h1>Halden Freight raises 120 crore</h1>{paragraphs}</article><footer>{chrome_bottom}</footer></body></html>"
        )
    }

    #[test]
    fn finds_a_syndicated_copy_with_different_chrome() {
        // The release on the company site and word for word on a wire site
        // with its own navigation, disclaimer and "trending" list, both
        // through the cleaner the engine uses.
        let original = html(
            "Home | Services | News | About",
            ARTICLE,
            "Media contact: media@halden.example",
        );
        let copy = html(
            "WireFeed Syndicate | Business | Logistics | Submit a release",
            &format!(
                "Distributed by WireFeed Syndicate on behalf of Halden Freight. {ARTICLE} Trending releases: textile exporter wins sustainability award. Solar pump maker expands to Odisha"
            ),
            "WireFeed Syndicate publishes releases as supplied by issuers and does not verify their content.",
        );
        let original = crate::evidence::clean::clean_html(&original).text;
        let copy = crate::evidence::clean::clean_html(&copy).text;
        let docs = [
            doc("https://wire.example/r/1", &copy, Some("2024-08-06"), 0.4),
            doc(
                "https://halden.example/news/funding",
                &original,
                Some("2024-08-06"),
                0.7,
            ),
            doc(
                "https://daily.example/2024/08/07/funding",
                INDEPENDENT,
                Some("2024-08-07"),
                0.7,
            ),
        ];
        let copies = find_copies(&docs);
        assert_eq!(copies.pairs.len(), 1, "{:?}", copies.pairs);
        assert!(
            copies.pairs[0].containment > CONTAINMENT_THRESHOLD,
            "{:?}",
            copies.pairs
        );
        // Same day: the more authoritative page is the origin.
        assert_eq!(
            copies.origin("https://wire.example/r/1"),
            "https://halden.example/news/funding"
        );
        assert!(copies.is_copy("https://wire.example/r/1"));
        assert!(!copies.is_copy("https://halden.example/news/funding"));
        // Independent reporting on the same event is its own origin.
        assert_eq!(
            copies.origin("https://daily.example/2024/08/07/funding"),
            "https://daily.example/2024/08/07/funding"
        );
        let exact = jaccard(&shingles(&original), &shingles(INDEPENDENT));
        assert!(exact < 0.1, "{exact}");
    }

    #[test]
    fn jaccard_alone_follows_the_course() {
        let a = shingles(ARTICLE);
        let b = shingles(&format!("{ARTICLE} A line of footer."));
        let (copy, j, _) = is_copy(&a, &b);
        assert!(copy && j > COPY_THRESHOLD);
        // Half the text is not a copy, however contained.
        let half: String = ARTICLE
            .split_whitespace()
            .take(50)
            .collect::<Vec<_>>()
            .join(" ");
        let (copy, _, c) = is_copy(&shingles(&half), &a);
        assert!(c > 0.9 && !copy);
    }

    #[test]
    fn a_statement_quoted_in_a_long_article_stays_independent() {
        let statement = "Halden Freight will use the money to add refrigerated trucks and open a fifth warehouse in central India, the company said in a statement.";
        let article = format!("{INDEPENDENT} {statement} {INDEPENDENT}");
        let docs = [
            doc("https://halden.example/statement", statement, None, 0.7),
            doc("https://daily.example/analysis", &article, None, 0.7),
        ];
        assert!(find_copies(&docs).pairs.is_empty());
    }

    #[test]
    fn the_earlier_page_is_the_origin() {
        let docs = [
            doc("https://a.example/1", ARTICLE, Some("2024-08-09"), 0.9),
            doc("https://b.example/1", ARTICLE, Some("2024-08-06"), 0.3),
            doc("https://c.example/1", ARTICLE, None, 1.0),
        ];
        let o = origins(&docs);
        for d in &docs {
            assert_eq!(o[d.url], "https://b.example/1");
        }
    }

    #[test]
    fn a_copy_of_a_copy_joins_the_group() {
        let v2 = ARTICLE.replacen("fifth", "new", 1);
        let v3 = v2.replacen("dairies", "dairy firms", 1);
        let docs = [
            doc("https://a.example/", ARTICLE, Some("2024-01-01"), 0.5),
            doc("https://b.example/", &v2, Some("2024-01-02"), 0.5),
            doc("https://c.example/", &v3, Some("2024-01-03"), 0.5),
        ];
        let o = origins(&docs);
        assert_eq!(o["https://c.example/"], "https://a.example/");
        assert_eq!(o["https://b.example/"], "https://a.example/");
    }

    #[test]
    fn empty_and_repeated_pages() {
        let docs = [
            doc("https://a.example/", "", None, 0.5),
            doc("https://b.example/", "", None, 0.5),
            doc("https://c.example/", ARTICLE, None, 0.5),
            doc("https://c.example/", ARTICLE, None, 0.5),
        ];
        let o = origins(&docs);
        assert_eq!(o["https://a.example/"], "https://a.example/");
        assert_eq!(o["https://b.example/"], "https://b.example/");
        assert_eq!(o["https://c.example/"], "https://c.example/");
        assert!(origins(&[]).is_empty());
    }

    #[test]
    fn result_does_not_depend_on_input_order() {
        let v2 = ARTICLE.replacen("fifth", "new", 1);
        let mut docs = vec![
            doc("https://a.example/", ARTICLE, None, 0.5),
            doc("https://b.example/", &v2, None, 0.5),
            doc("https://d.example/", INDEPENDENT, None, 0.7),
        ];
        let forward = origins(&docs);
        docs.reverse();
        assert_eq!(forward, origins(&docs));
        assert_eq!(forward["https://b.example/"], "https://a.example/");
    }
}
