//! Citation lint and renumbering. Citations are `[n]` (also `[n, m]` and
//! `[n-m]`); a report's Sources section lists `[n] ...` lines.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

/// `[3]`, `[3, 5]`, `[3-5]`, `[3][4]` (each bracket on its own).
static CITE: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"\[(\d{1,4}(?:\s*[,\u{2013}-]\s*\d{1,4})*)\](?:\(|:)?"));
static SOURCES_HEADING: LazyLock<Regex> =
    LazyLock::new(|| crate::re(r"(?im)^#{1,6}\s*(sources|references|bibliography|citations)\s*$"));

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub line: usize,
    pub kind: ProblemKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    /// `[n]` with no source n.
    Dangling,
    /// A source never cited.
    Orphan,
    /// Source numbers with a hole or not starting at 1.
    Gap,
    /// A source listed twice.
    Duplicate,
    /// Tool-call, envelope or thinking text leaked into the report.
    Leak,
    /// The report's Sources list gives `[n]` another URL than sources.json.
    WrongUrl,
    /// A quote that is not in the text of the source it cites.
    QuoteNotInSource,
    /// A cited sentence its source does not support (the claim check).
    Unsupported,
    /// A link, image or HTML tag pointing anywhere but a cited source.
    OutsideLink,
}

/// Citation numbers in a piece of text, in order of appearance, with line numbers (1-based).
pub fn citations(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (ln, line) in text.lines().enumerate() {
        for cap in CITE.captures_iter(line) {
            // `[1](url)` and `[1]: url` are link syntax, not citations.
            let whole = cap.get(0).map(|m| m.as_str()).unwrap_or("");
            if whole.ends_with('(') || whole.ends_with(':') {
                continue;
            }
            for n in expand(&cap[1]) {
                out.push((ln + 1, n));
            }
        }
    }
    out
}

/// Citations in one line as byte ranges with their numbers (link syntax
/// such as `[1](url)` left out).
pub fn citation_spans(line: &str) -> Vec<(usize, usize, Vec<usize>)> {
    CITE.captures_iter(line)
        .filter_map(|cap| {
            let whole = cap.get(0)?;
            if whole.as_str().ends_with('(') || whole.as_str().ends_with(':') {
                return None;
            }
            let nums = expand(&cap[1]);
            (!nums.is_empty()).then(|| (whole.start(), whole.end(), nums))
        })
        .collect()
}

fn expand(inner: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in inner.split(',') {
        let part = part.trim();
        if let Some((a, b)) = part.split_once(['-', '\u{2013}']) {
            if let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>())
                && a <= b
                && b - a < 50
            {
                out.extend(a..=b);
            }
        } else if let Ok(n) = part.parse() {
            out.push(n);
        }
    }
    out
}

/// Splits a report at its Sources section: (body, sources section if any,
/// line offset of the section).
pub fn split_sources(markdown: &str) -> (&str, Option<&str>, usize) {
    match SOURCES_HEADING.find(markdown) {
        Some(m) => {
            let line = markdown[..m.start()].lines().count();
            (&markdown[..m.start()], Some(&markdown[m.start()..]), line)
        }
        None => (markdown, None, 0),
    }
}

/// Source numbers listed in a Sources section: lines starting with `[n]`,
/// `n.` or `- [n]`, with their line numbers (relative to the section).
pub fn listed_sources(section: &str) -> Vec<(usize, usize)> {
    static ENTRY: LazyLock<Regex> =
        LazyLock::new(|| crate::re(r"^\s*(?:[-*]\s*)?(?:\[(\d{1,4})\]|(\d{1,4})\.)\s"));
    section
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let c = ENTRY.captures(l)?;
            let n = c.get(1).or(c.get(2))?.as_str().parse().ok()?;
            Some((i + 1, n))
        })
        .collect()
}

/// Lints a report. `known` is the set of valid source numbers (from
/// sources.json); without it, the report's own Sources section is used.
pub fn lint(markdown: &str, known: Option<&BTreeSet<usize>>) -> Vec<Problem> {
    let (body, section, offset) = split_sources(markdown);
    let cited = citations(body);
    let listed: Vec<(usize, usize)> = section
        .map(listed_sources)
        .unwrap_or_default()
        .into_iter()
        .map(|(l, n)| (l + offset, n))
        .collect();
    let mut problems = Vec::new();
    let mut seen = BTreeMap::new();
    for &(line, n) in &listed {
        if seen.insert(n, line).is_some() {
            problems.push(Problem {
                line,
                kind: ProblemKind::Duplicate,
                message: format!("source [{n}] is listed twice"),
            });
        }
    }
    let valid: BTreeSet<usize> = match known {
        Some(k) => k.clone(),
        None => seen.keys().copied().collect(),
    };
    for &(line, n) in &cited {
        if !valid.contains(&n) {
            problems.push(Problem {
                line,
                kind: ProblemKind::Dangling,
                message: format!("[{n}] cites a source that does not exist"),
            });
        }
    }
    let cited_set: BTreeSet<usize> = cited.iter().map(|&(_, n)| n).collect();
    for &n in &valid {
        if !cited_set.contains(&n) {
            let line = seen.get(&n).copied().unwrap_or(0);
            problems.push(Problem {
                line,
                kind: ProblemKind::Orphan,
                message: format!("source [{n}] is never cited"),
            });
        }
    }
    if let Some(&max) = valid.iter().max() {
        let missing: Vec<usize> = (1..=max).filter(|n| !valid.contains(n)).collect();
        if !missing.is_empty() {
            problems.push(Problem {
                line: 0,
                kind: ProblemKind::Gap,
                message: format!(
                    "source numbering is not contiguous: missing {}",
                    missing
                        .iter()
                        .map(|n| format!("[{n}]"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
    }
    problems.sort_by_key(|p| p.line);
    problems
}

/// Stands in for a dropped citation until its leading space is removed.
const REMOVED: &str = "\u{0}";

/// Renumbers citations in order of first appearance. Returns the new text
/// and the old numbers in their new order (`order[i]` is the old number of
/// new source `i + 1`). Citations not in `keep` are removed.
pub fn renumber(body: &str, keep: &BTreeSet<usize>) -> (String, Vec<usize>) {
    let mut order: Vec<usize> = Vec::new();
    for (_, n) in citations(body) {
        if keep.contains(&n) && !order.contains(&n) {
            order.push(n);
        }
    }
    let new_of = |old: usize| order.iter().position(|&o| o == old).map(|i| i + 1);
    let out = CITE.replace_all(body, |c: &regex::Captures| {
        let whole = &c[0];
        if whole.ends_with('(') || whole.ends_with(':') {
            return whole.to_string();
        }
        let mut nums: Vec<usize> = expand(&c[1]).into_iter().filter_map(new_of).collect();
        nums.sort_unstable();
        nums.dedup();
        if nums.is_empty() {
            // Marks a removed citation, so only its own space goes with it.
            return REMOVED.to_string();
        }
        nums.iter().map(|n| format!("[{n}]")).collect::<String>()
    });
    let tidy = out.replace(&format!(" {REMOVED}"), "").replace(REMOVED, "");
    (tidy, order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_dangling_orphans_and_gaps() {
        let md = "Claim [1]. Other [3].\n\n## Sources\n\n[1] A\n[2] B\n[4] D\n";
        let p = lint(md, None);
        let kinds: Vec<_> = p.iter().map(|p| p.kind).collect();
        assert!(kinds.contains(&ProblemKind::Dangling));
        assert!(kinds.contains(&ProblemKind::Orphan));
        assert!(kinds.contains(&ProblemKind::Gap));
        let dangling = p.iter().find(|p| p.kind == ProblemKind::Dangling).unwrap();
        assert_eq!(dangling.line, 1);
        let orphan = p.iter().find(|p| p.kind == ProblemKind::Orphan).unwrap();
        assert_eq!(orphan.line, 6);
    }

    #[test]
    fn clean_report_passes() {
        let md = "A [1], B [2][1], C [1, 2].\n\n## Sources\n\n1. A\n2. B\n";
        assert_eq!(lint(md, None), vec![]);
    }

    #[test]
    fn renumbers_by_first_citation_and_drops_unknown() {
        let keep: BTreeSet<usize> = [2, 5, 7].into_iter().collect();
        let (out, order) = renumber("X [5]. Y [2, 5]. Z [9]. W [7-8].", &keep);
        assert_eq!(order, vec![5, 2, 7]);
        assert_eq!(out, "X [1]. Y [1][2]. Z. W [3].");
    }

    #[test]
    fn renumbering_keeps_indentation_and_spacing() {
        let keep: BTreeSet<usize> = [1].into_iter().collect();
        let (out, _) = renumber(
            "- a [1]\n  - nested  two spaces [4].\n    code block",
            &keep,
        );
        assert_eq!(out, "- a [1]\n  - nested  two spaces.\n    code block");
    }

    #[test]
    fn links_are_not_citations() {
        assert!(citations("see [1](https://x) and\n[2]: https://y").is_empty());
    }
}
