//! Every cited sentence checked. Each sentence of a report that carries
//! `[n]` is held against the stored text of source n:
//!
//! - a quotation in it must appear in the source (folded: case, quote marks,
//!   dashes, whitespace, thousands separators);
//! - its numbers (`1,200` = `1200`, `$12m` = `12 million`, `₹50 crore` =
//!   `500 million`), dates (`5 March 2024` = `2024-03-05`) and names must
//!   appear in the source (a name also by its acronym, `RBI`);
//! - and, unless it quotes, at least half of its key terms (stemmed) must
//!   appear together in a short passage of the source (three sentences) or
//!   in an accepted finding of that source (a paraphrase).
//!
//! With several sources cited, each fact may come from any of them. The
//! report gate bounces unsupported sentences once, then removes them and
//! lists them under Gaps; `dra lint-report` and `dra eval` run the same check.

pub mod facts;
pub mod segment;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::evidence::sentences;
use facts::{Date, EQUIVALENTS, Name, Number};
pub use segment::{CitedClaim, cited_claims};

/// Share of a claim's key terms that must appear in one passage.
const TERM_COVERAGE: f64 = 0.5;
/// A quotation shorter than this is emphasis, not a quote to verify.
const MIN_QUOTE_CHARS: usize = 12;
/// Sentences on each side of a sentence that make up its passage.
const PASSAGE_RADIUS: usize = 1;

/// One source, prepared for checking many claims.
#[derive(Debug, Default)]
pub struct PreparedSource {
    folded: String,
    /// `folded` without Markdown's emphasis, code and escape marks, which
    /// a report's quotation loses or gains (`[profile.*]`, `\[x\]`).
    bare: String,
    words: HashSet<String>,
    acronyms: HashSet<String>,
    numbers: HashSet<String>,
    dates: HashSet<String>,
    /// Stem → the passages (sentence indices, then findings) that hold it.
    index: HashMap<String, Vec<u32>>,
    sentences: usize,
    passages: usize,
}

/// What a source brings: its text, title and URL, the dates the page
/// carries as metadata, and the accepted findings drawn from it.
#[derive(Debug, Clone, Default)]
pub struct SourceInput<'a> {
    pub text: &'a str,
    pub title: &'a str,
    pub url: &'a str,
    pub dates: Vec<&'a str>,
    pub findings: Vec<String>,
}

impl PreparedSource {
    pub fn new(input: &SourceInput<'_>) -> Self {
        let mut src = PreparedSource {
            folded: facts::fold(input.text),
            ..Default::default()
        };
        src.bare = facts::fold(&without_markup(input.text));
        let meta = facts::fold(&format!(
            "{} {}",
            input.title,
            input.url.replace(['/', '.', '-', '_'], " ")
        ));
        for text in [&src.folded, &meta] {
            for (w, _) in facts::words(text) {
                src.words.insert(w.to_string());
            }
            for n in facts::numbers(text) {
                src.numbers.extend(n.keys);
            }
            for d in facts::dates(text) {
                src.dates.extend(facts::date_keys(&d));
                for r in &d.readings {
                    src.numbers
                        .insert(r[..4].trim_start_matches('0').to_string());
                }
            }
        }
        for d in &input.dates {
            for parsed in facts::dates(&facts::fold(d)) {
                src.dates.extend(facts::date_keys(&parsed));
            }
        }
        src.acronyms = facts::acronyms(&quotes_kept(input.text));
        src.acronyms.extend(facts::acronyms(input.title));
        let passages: Vec<String> = sentences::split(&src.folded)
            .into_iter()
            .map(str::to_string)
            .collect();
        src.sentences = passages.len();
        // Page sentences are already folded; findings are folded here.
        let findings: Vec<String> = input.findings.iter().map(|f| facts::fold(f)).collect();
        let all = passages.iter().chain(findings.iter());
        let mut stems = facts::StemCache::default();
        for (i, p) in all.enumerate() {
            for t in stems.terms(p) {
                let slot = src.index.entry(t).or_default();
                if slot.last() != Some(&(i as u32)) {
                    slot.push(i as u32);
                }
            }
            src.passages = i + 1;
        }
        src
    }

    fn has_quote(&self, quote: &str) -> bool {
        // An ellipsis marks an omission: each part must be there.
        let parts = |q: String| -> Vec<String> {
            q.split("...")
                .map(|p| p.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace()))
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect()
        };
        parts(facts::fold(quote))
            .iter()
            .all(|p| self.folded.contains(p.as_str()))
            || parts(facts::fold(&without_markup(quote)))
                .iter()
                .all(|p| self.bare.contains(p.as_str()))
    }

    fn has_number(&self, n: &Number) -> bool {
        n.keys.first().is_some_and(|k| self.numbers.contains(k))
    }

    fn has_word(&self, w: &str) -> bool {
        self.words.contains(w)
            || EQUIVALENTS
                .iter()
                .any(|(k, alts)| *k == w && alts.iter().all(|a| self.words.contains(*a)))
    }

    fn has_name(&self, name: &Name) -> bool {
        let parts: Vec<&String> = name
            .parts
            .iter()
            .filter(|p| p.chars().count() > 1)
            .collect();
        if parts.iter().all(|p| self.has_word(p)) {
            return true;
        }
        let initials: String = parts.iter().filter_map(|p| p.chars().next()).collect();
        (parts.len() > 1 && self.words.contains(&initials))
            || (parts.len() == 1 && parts.iter().all(|p| self.acronyms.contains(p.as_str())))
    }

    /// The most of `terms` one passage holds (a sentence and its
    /// neighbours, or one finding).
    fn best_passage(&self, terms: &[String]) -> usize {
        let mut masks: HashMap<u32, u64> = HashMap::new();
        for (ti, t) in terms.iter().take(64).enumerate() {
            let mut hits: Vec<u32> = self.index.get(t).cloned().unwrap_or_default();
            for (k, alts) in EQUIVALENTS {
                if facts::stem(k) == *t {
                    for a in *alts {
                        hits.extend(self.index.get(&facts::stem(a)).into_iter().flatten());
                    }
                }
            }
            for p in hits {
                *masks.entry(p).or_default() |= 1 << ti;
            }
        }
        let mut best = 0;
        for (&p, &mask) in &masks {
            let mut m = mask;
            if (p as usize) < self.sentences {
                let lo = (p as usize).saturating_sub(PASSAGE_RADIUS);
                let hi = (p as usize + PASSAGE_RADIUS).min(self.sentences.saturating_sub(1));
                for q in lo..=hi {
                    m |= masks.get(&(q as u32)).copied().unwrap_or(0);
                }
            }
            best = best.max(m.count_ones() as usize);
        }
        best
    }
}

/// Text with typographic marks folded but case kept (for names).
fn quotes_kept(text: &str) -> String {
    crate::evidence::quotes::normalize(text)
}

/// The sources of a report by number, prepared once.
#[derive(Debug, Default)]
pub struct Library {
    sources: BTreeMap<usize, PreparedSource>,
    urls: BTreeMap<usize, String>,
}

impl Library {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, number: usize, input: &SourceInput<'_>) {
        self.urls.insert(number, input.url.to_string());
        self.sources.insert(number, PreparedSource::new(input));
    }

    pub fn url(&self, number: usize) -> Option<&str> {
        self.urls.get(&number).map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.sources.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }
}

/// The verdict on one cited claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimResult {
    pub line: usize,
    #[serde(skip)]
    pub sentence: (usize, usize),
    pub text: String,
    pub cites: Vec<usize>,
    pub supported: bool,
    /// What is missing, when unsupported (`the number 1,500 is not in [3]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

/// The check of a whole report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Check {
    pub claims: Vec<ClaimResult>,
}

impl Check {
    pub fn checked(&self) -> usize {
        self.claims.len()
    }

    pub fn supported(&self) -> usize {
        self.claims.iter().filter(|c| c.supported).count()
    }

    pub fn unsupported(&self) -> impl Iterator<Item = &ClaimResult> {
        self.claims.iter().filter(|c| !c.supported)
    }

    /// Supported share; 1.0 when nothing was cited.
    pub fn rate(&self) -> f64 {
        if self.claims.is_empty() {
            1.0
        } else {
            self.supported() as f64 / self.claims.len() as f64
        }
    }
}

fn cite_list(cites: &[usize]) -> String {
    cites.iter().map(|n| format!("[{n}]")).collect()
}

/// Checks every cited claim of a report against its sources.
pub fn check(markdown: &str, library: &Library) -> Check {
    let claims = cited_claims(markdown)
        .into_iter()
        .filter_map(|c| check_claim(&c, library))
        .collect();
    Check { claims }
}

/// Text without the marks Markdown adds or takes away around verbatim
/// words: emphasis and code marks and backslash escapes.
fn without_markup(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '*' | '`' | '\\'))
        .collect()
}

/// Checks one claim; `None` when it states nothing checkable (`See [2].`).
fn check_claim(claim: &CitedClaim, library: &Library) -> Option<ClaimResult> {
    let sources: Vec<&PreparedSource> = claim
        .cites
        .iter()
        .filter_map(|n| library.sources.get(n))
        .collect();
    let cited = cite_list(&claim.cites);
    let kept = quotes_kept(&claim.text);
    // Quotations: verbatim in one of the cited sources, then set aside.
    let (quoted, rest) = split_quotes(&kept);
    let folded_rest = facts::fold(&rest);
    let dates = facts::dates(&folded_rest);
    let mut without_dates = folded_rest.clone();
    for d in dates.iter().rev() {
        without_dates.replace_range(d.span.0..d.span.1, " ");
    }
    let numbers = facts::numbers(&without_dates);
    let names = facts::names(&rest);
    let terms = facts::terms(&without_dates);
    if quoted.is_empty()
        && numbers.is_empty()
        && dates.is_empty()
        && names.is_empty()
        && terms.len() < 2
    {
        return None;
    }
    let mut problems = Vec::new();
    if sources.is_empty() {
        problems.push(format!("{cited} has no stored text to check against"));
    } else {
        for q in &quoted {
            if !sources.iter().any(|s| s.has_quote(q)) {
                problems.push(format!("the quote \"{}\" is not in {cited}", short(q, 80)));
            }
        }
        for n in &numbers {
            if !sources.iter().any(|s| s.has_number(n)) {
                problems.push(format!("the number {} is not in {cited}", n.text));
            }
        }
        for d in &dates {
            if !sources.iter().any(|s| facts::date_supported(d, &s.dates)) {
                problems.push(format!("the date {} is not in {cited}", date_text(d)));
            }
        }
        for n in &names {
            if !sources.iter().any(|s| s.has_name(n)) {
                problems.push(format!("the name \"{}\" is not in {cited}", n.text));
            }
        }
        // A quotation carries the claim; otherwise its words must be found together.
        if quoted.is_empty() && !terms.is_empty() {
            let needed = ((terms.len() as f64) * TERM_COVERAGE).ceil() as usize;
            let best = sources
                .iter()
                .map(|s| s.best_passage(&terms))
                .max()
                .unwrap_or(0);
            if best < needed.max(1) {
                problems.push(format!(
                    "only {best} of its {} key terms ({}) appear together in {cited}",
                    terms.len(),
                    terms.iter().take(6).cloned().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    Some(ClaimResult {
        line: claim.line,
        sentence: claim.sentence,
        text: claim.text.clone(),
        cites: claim.cites.clone(),
        supported: problems.is_empty(),
        problems,
    })
}

fn date_text(d: &Date) -> String {
    d.text.trim().to_string()
}

/// Splits quotations (`"..."`, at least [`MIN_QUOTE_CHARS`] long) from the
/// rest of a claim.
fn split_quotes(text: &str) -> (Vec<String>, String) {
    let mut quoted = Vec::new();
    let mut rest = String::new();
    let mut parts = text.split('"');
    if let Some(first) = parts.next() {
        rest.push_str(first);
    }
    let parts: Vec<&str> = parts.collect();
    let pairs = parts.len() / 2 * 2;
    for (i, p) in parts.iter().enumerate() {
        let inside = i % 2 == 0 && i < pairs;
        if inside && p.trim().chars().count() >= MIN_QUOTE_CHARS {
            quoted.push(p.to_string());
            rest.push(' ');
        } else {
            rest.push_str(p);
        }
    }
    (quoted, rest)
}

fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(n).collect::<String>().trim_end())
    }
}

/// A report with its unsupported sentences taken out, and what was taken.
#[derive(Debug, Clone, Default)]
pub struct Enforced {
    pub markdown: String,
    pub removed: Vec<String>,
}

/// Removes the sentences holding unsupported claims and lists each under
/// Gaps (without its citations, naming the source by URL, since numbers
/// change when the report is renumbered).
pub fn remove_unsupported(markdown: &str, check: &Check, library: &Library) -> Enforced {
    let mut cut: Vec<&ClaimResult> = check.unsupported().collect();
    if cut.is_empty() {
        return Enforced {
            markdown: markdown.to_string(),
            removed: Vec::new(),
        };
    }
    cut.sort_by_key(|c| c.sentence);
    cut.dedup_by_key(|c| c.sentence);
    let mut gaps = Vec::new();
    let mut out = String::with_capacity(markdown.len());
    let mut pos = 0;
    for c in &cut {
        let (s, e) = c.sentence;
        if s < pos
            || e > markdown.len()
            || !markdown.is_char_boundary(s)
            || !markdown.is_char_boundary(e)
        {
            continue;
        }
        out.push_str(&markdown[pos..s]);
        pos = e;
        let urls: Vec<String> = c
            .cites
            .iter()
            .map(|n| {
                library
                    .url(*n)
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("source {n}"))
            })
            .collect();
        let why = c
            .problems
            .iter()
            .map(|p| strip_cites(&p.replace(&cite_list(&c.cites), "the source")))
            .collect::<Vec<_>>()
            .join("; ");
        gaps.push(format!(
            "Removed a sentence its source does not support (cited {}): \"{}\" ({why}).",
            urls.join(", "),
            short(&strip_cites(&c.text).replace('"', "'"), 160)
        ));
    }
    out.push_str(&markdown[pos..]);
    // Lines emptied by the cut go; spaces left at joins are tidied.
    let kept: Vec<String> = out
        .lines()
        .zip(markdown_lines_touched(markdown, &cut))
        .filter(|(l, touched)| !(*touched && segment::is_husk(l)))
        .map(|(l, touched)| if touched { tidy(l) } else { l.to_string() })
        .collect();
    let body = kept.join("\n");
    Enforced {
        markdown: add_gaps(&body, &gaps),
        removed: gaps,
    }
}

/// For each line of the text after the cut, whether a cut touched it. Cuts
/// never span a line break, so line counts match.
fn markdown_lines_touched(markdown: &str, cut: &[&ClaimResult]) -> Vec<bool> {
    let mut touched = Vec::new();
    let mut offset = 0;
    for line in markdown.split_inclusive('\n') {
        let (s, e) = (offset, offset + line.len());
        touched.push(cut.iter().any(|c| c.sentence.0 >= s && c.sentence.1 <= e));
        offset = e;
    }
    touched
}

fn tidy(line: &str) -> String {
    let indent = line.len() - line.trim_start().len();
    let body = line
        .trim()
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    format!("{}{body}", &line[..indent])
}

fn strip_cites(s: &str) -> String {
    let mut out = s.to_string();
    for (st, e, _) in crate::report::citations::citation_spans(s)
        .into_iter()
        .rev()
    {
        out.replace_range(st..e, "");
    }
    let out = out.replace("  ", " ");
    out.replace(" .", ".").trim().to_string()
}

/// Appends entries to the report's Gaps section, creating it (before any
/// Sources or security notes) when there is none.
pub fn add_gaps(markdown: &str, gaps: &[String]) -> String {
    if gaps.is_empty() {
        return markdown.to_string();
    }
    let bullets: String = gaps.iter().map(|g| format!("- {g}\n")).collect();
    let region_end = segment::claims_region(markdown).len();
    let (head, tail) = markdown.split_at(region_end);
    let lines: Vec<&str> = head.lines().collect();
    let gaps_at = lines.iter().position(|l| {
        let t = l.trim_start_matches('#').trim().to_lowercase();
        l.starts_with('#')
            && (t == "gaps" || t.starts_with("gaps ") || t == "what the sources do not say")
    });
    let mut out = String::new();
    match gaps_at {
        Some(g) => {
            // The end of the Gaps section: the next heading, or the end.
            let end = lines[g + 1..]
                .iter()
                .position(|l| l.starts_with('#'))
                .map(|k| g + 1 + k)
                .unwrap_or(lines.len());
            let mut last = end;
            while last > g + 1 && lines[last - 1].trim().is_empty() {
                last -= 1;
            }
            for l in &lines[..last] {
                out.push_str(l);
                out.push('\n');
            }
            if last == g + 1 {
                out.push('\n');
            }
            out.push_str(&bullets);
            for l in &lines[last..] {
                out.push_str(l);
                out.push('\n');
            }
        }
        None => {
            out.push_str(head.trim_end());
            out.push_str("\n\n## Gaps\n\n");
            out.push_str(&bullets);
            if !tail.is_empty() {
                out.push('\n');
            }
        }
    }
    if !tail.is_empty() {
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(tail);
    }
    out
}

#[cfg(test)]
mod tests;
